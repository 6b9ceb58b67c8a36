// UI check (issue 15): two turns change a file; the panel's Checkpoints section restores the files to before the first one.
import fs from 'node:fs';
import path from 'node:path';
import { SELECTORS, TEXT } from '../selectors.mjs';
import { sendChat } from '../chat.mjs';
import { findFrameWith } from '../webview.mjs';
import { runCommand } from '../workbench.mjs';
import { retrying } from '../steady.mjs';

const FILE = 'notes/checkpoint-demo.md';
const CREATE = 'checkpoint: write the release notes draft';
const EDIT = 'checkpoint: edit the draft';

function fileText(dirs) {
  const absolute = path.join(dirs.workspace, FILE);
  return fs.existsSync(absolute) ? fs.readFileSync(absolute, 'utf8') : null;
}

async function waitForFile(page, dirs, expected, what) {
  for (let tries = 0; tries < 80; tries++) {
    if (fileText(dirs) === expected) return;
    await page.waitForTimeout(250);
  }
  throw new Error(`${what}: ${FILE} holds ${JSON.stringify(fileText(dirs))}`);
}

export const checkpointRestore = {
  name: 'Checkpoints in the panel: restore the files to before an earlier request',
  async run({ page, shot, dirs }) {
    await sendChat(page, `${TEXT.participant} ${CREATE}`, { until: /Created notes/ });
    await sendChat(page, `${TEXT.participant} ${EDIT}`, { until: /Edited notes/ });
    await waitForFile(page, dirs, '# Release notes\n\n- second draft, rewritten by the agent\n', 'after the two turns');

    await runCommand(page, TEXT.showBudgetCommand);
    const frame = await findFrameWith(page, SELECTORS.checkpointsHeading, 30_000);
    const row = frame.locator(SELECTORS.checkpointRow, { hasText: CREATE }).first();
    await row.waitFor({ timeout: 20_000 });
    const meta = (await row.innerText()).replace(/\s+/g, ' ');
    if (!meta.includes(FILE)) throw new Error(`the checkpoint row does not name the changed file: "${meta}"`);
    await retrying('scrolling to the checkpoint', () => row.scrollIntoViewIfNeeded());
    await row.getByRole('button', { name: /Restore to before/ }).click();

    const filesOnly = page.locator(SELECTORS.quickInputRow, { hasText: 'Files only' }).first();
    await filesOnly.waitFor({ timeout: 15_000 });
    const rows = (await page.locator(SELECTORS.quickInputRow).allInnerTexts()).map((text) => text.replace(/\s+/g, ' '));
    if (!rows.some((text) => text.includes('Files and conversation')) || !rows.some((text) => text.includes('Conversation only'))) {
      throw new Error(`the restore choices are incomplete: ${JSON.stringify(rows)}`);
    }
    await page.waitForTimeout(400); // the quick pick fades in
    await shot('11a-checkpoint-choice');
    await filesOnly.click();

    // The first turn created the file: before it, the file did not exist.
    await waitForFile(page, dirs, null, 'after restoring to before the first turn');
    await frame.getByText(/Restored 1 file to before/).first().waitFor({ timeout: 20_000 });
    const restoreRow = frame.locator(SELECTORS.checkpointRow, { hasText: 'Restore of 1 file' }).first();
    await restoreRow.waitFor({ timeout: 20_000 });
    await retrying('scrolling to the restore checkpoint', () => restoreRow.scrollIntoViewIfNeeded());
    await page.waitForTimeout(300);
    await shot('11b-checkpoint-restored');

    // The restore is itself a checkpoint: undoing it brings the agent's last version back.
    await restoreRow.getByRole('button', { name: /Restore to before/ }).click();
    const again = page.locator(SELECTORS.quickInputRow, { hasText: 'Files only' }).first();
    await again.waitFor({ timeout: 15_000 });
    await again.click();
    await waitForFile(page, dirs, '# Release notes\n\n- second draft, rewritten by the agent\n', 'after undoing the restore');
  },
};
