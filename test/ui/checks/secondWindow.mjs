// UI check (issue 41): a second window on the same folder shows no session until its own chat starts one, reads what
// the first window writes (Sessions…, read-only), and after a reload of either window each shows the session its own
// chat continues; the sessions of the folder live in one storage folder.
import fs from 'node:fs';
import path from 'node:path';
import { screenshot } from '../../harness/browser.mjs';
import { workbenchUrl } from '../../harness/codeServer.mjs';
import { freshSession, sendChat } from '../chat.mjs';
import { SELECTORS } from '../selectors.mjs';
import { lasting, readJsonFile } from '../steady.mjs';
import { budgetFigures, budgetStatusText, panelFrame, panelView } from '../webview.mjs';
import { pickDemoModel, runCommand } from '../workbench.mjs';

const FIRST = 'first window';
const FIRST_TITLE = `${FIRST}, request 1: list the workspace`;
const FIRST_MORE = 'first window again: list the workspace';
const SECOND_TITLE = 'second window: list the workspace';

/** Every folder under `dir` named `sessions` that holds a session log, with the log names. */
function sessionFolders(dir) {
  const found = [];
  const walk = (folder) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const child = path.join(folder, entry.name);
      if (entry.name === 'sessions') {
        const logs = fs.readdirSync(child).filter((name) => name.endsWith('.jsonl') && !name.endsWith('.quarantine.jsonl'));
        if (logs.length > 0) found.push({ folder: child, logs });
      }
      walk(child);
    }
  };
  walk(dir);
  return found;
}

/** The window shows the session titled `title` in its panel and a budget in its status item, lastingly. */
async function showsOwn(page, which, title) {
  await lasting(`${which}: the budget item`, () => budgetStatusText(page), (text) => budgetFigures(text) !== undefined, { timeoutMs: 90_000 });
  return lasting(`${which}: the panel on "${title}"`, () => panelView(page), (view) => view.title === title, { timeoutMs: 90_000 });
}

async function reloaded(page) {
  await page.reload();
  await page.locator(SELECTORS.workbench).waitFor({ timeout: 60_000 });
}

export const secondWindow = {
  name: 'second-window-on-the-same-folder',
  themes: ['dark'],
  async run({ page, shot, dirs, server, theme }) {
    await freshSession(page, FIRST, 1);
    await showsOwn(page, 'window 1', FIRST_TITLE);
    const second = await page.context().newPage();
    const secondShot = (name) => screenshot(second, `ui-${theme}-${name}`);
    try {
      await second.goto(workbenchUrl(server, dirs.workspace));
      await second.locator(SELECTORS.workbench).waitFor({ timeout: 60_000 });
      // Its chat is empty: it shows that there is no session of its own yet, never window 1's.
      await lasting('window 2: the budget item', () => budgetStatusText(second), (text) => /no session yet/.test(text ?? ''), { timeoutMs: 60_000, holdMs: 5_000 });

      // It reads what window 1 writes: Sessions… lists window 1's session.
      await runCommand(second, 'Compaction Agent: Sessions...');
      await second.locator(SELECTORS.quickInputRow, { hasText: FIRST_TITLE }).first().waitFor({ timeout: 20_000 });
      await second.keyboard.press('Escape');

      // Its own chat starts its own session, which it shows; window 1 goes on showing its own.
      await pickDemoModel(second);
      await sendChat(second, `@agent ${SECOND_TITLE}`, { until: /Done with request/, timeoutMs: 120_000 });
      await showsOwn(second, 'window 2', SECOND_TITLE);
      await sendChat(page, `@agent ${FIRST_MORE}`, { until: /Done with request/, timeoutMs: 120_000 });
      await showsOwn(page, 'window 1', FIRST_TITLE);
      await secondShot('second-window-01-own-session');

      // Window 2 opens window 1's session from Sessions…: read-only, with what window 1 wrote a moment ago.
      await runCommand(second, 'Compaction Agent: Sessions...');
      await second.locator(SELECTORS.quickInputRow, { hasText: FIRST_TITLE }).first().click({ timeout: 20_000 });
      await second.locator(SELECTORS.quickInputRow, { hasText: 'Open' }).first().click({ timeout: 15_000 });
      const read = await lasting('window 2: window 1’s session, as written', () => panelView(second), (view) => view.title === FIRST_TITLE && view.turns.includes(FIRST_MORE), { timeoutMs: 60_000 });
      console.log(`    window 2 reads window 1's turns: ${read.turns.slice(0, 120)}`);
      await second.getByText(/open in another window/).first().waitFor({ timeout: 20_000 });
      // …and the panel says whose it is, in words beside its title.
      await (await panelFrame(second)).locator('#session-read-only').waitFor({ state: 'visible', timeout: 20_000 });
      await secondShot('second-window-02-reads-the-first');

      // After a reload each window shows the session its own chat continues, not the other's.
      await reloaded(second);
      await showsOwn(second, 'window 2 after its reload', SECOND_TITLE);
      await reloaded(page);
      await showsOwn(page, 'window 1 after its reload', FIRST_TITLE);
      await secondShot('second-window-03-after-reloads');
      await shot('second-window-first-after-reload');
    } finally {
      await second.close().catch(() => undefined);
    }

    // One storage place: every session log of the folder in one sessions folder (the global storage's, for this folder).
    const folders = sessionFolders(dirs.userData);
    if (folders.length !== 1) throw new Error(`the sessions of one folder are in ${folders.length} storage folders: ${folders.map((found) => found.folder).join(', ')}`);
    const index = await readJsonFile(path.join(folders[0].folder, 'index.json'));
    const titles = index.sessions.map((record) => record.title);
    for (const title of [FIRST_TITLE, SECOND_TITLE]) if (!titles.includes(title)) throw new Error(`the shared index lacks "${title}": ${JSON.stringify(titles)}`);
    if (!folders[0].folder.includes(`${path.sep}globalStorage${path.sep}`)) throw new Error(`the sessions are not in the global storage: ${folders[0].folder}`);
  },
};
