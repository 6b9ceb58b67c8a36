// UI check (issue 33): with the demo's defaults (its endpoint lists a 12k window), the status item and panel show the session the chat continues from the moment it is current: /new, a hand-off, a window reload, a branch switch; titles come from first requests.
import { SELECTORS, TEXT } from '../selectors.mjs';
import { lastResponse, sendChat } from '../chat.mjs';
import { lasting, retrying } from '../steady.mjs';
import { budgetFigures, budgetStatusText, panelFrame, panelView } from '../webview.mjs';
import { runCommand } from '../workbench.mjs';
import { DEMO_TURNS } from './demoScenario.mjs';

const DOCS_REQUEST = 'check the docs for slug rules';
const AFTER_HANDOFF_REQUEST = 'check the docs once more';
/** The demo endpoint lists a 12,000-token window: the panel's Window fact says so, never the 128k assumption. */
const LISTED_WINDOW = /^12k \(/;

/** The status item and the panel show the same budget (the same session), with the listed window; resolves to the panel's view. */
async function followed(page, what, accept = () => true) {
  const view = await lasting(
    `${what}: the panel`,
    () => panelView(page),
    (shown) => shown.figures !== undefined && LISTED_WINDOW.test(shown.window) && accept(shown),
  );
  await lasting(`${what}: the budget item`, () => budgetStatusText(page), (text) => {
    const figures = budgetFigures(text);
    return figures !== undefined && figures.usable === view.figures.usable && Math.abs(figures.percent - view.figures.percent) <= 1;
  });
  return panelView(page);
}

export const sessionFollows = {
  name: 'the status item and panel follow the session the chat continues (/new, hand-off, reload, branch switch) with the listed window; titles come from first requests',
  async run({ page, shot }) {
    await panelFrame(page);
    const before = await followed(page, 'before /new');
    console.log(`    before /new the panel's banner says: "${before.banner}"`);

    // /new: the new session at once, with the same window and reserve, and without the previous session's banner.
    await sendChat(page, `${TEXT.participant} /new`, { until: /Started a new session/ });
    const fresh = await followed(page, 'after /new', (view) => view.title === 'New session' && view.banner === '');
    if (fresh.reserved !== before.reserved) throw new Error(`the new session reserves ${fresh.reserved} for output, the previous one ${before.reserved}`);
    await page.waitForTimeout(400);
    await shot('demo-09-new-session');
    await sendChat(page, `${TEXT.participant} ${DOCS_REQUEST}`, { until: /The docs list four rules/, timeoutMs: 120_000 });
    await followed(page, 'after the first request', (view) => view.title === DOCS_REQUEST);

    // /handoff: the chat names the panel's buttons; Start new session starts it, and both screens show it at once.
    await sendChat(page, `${TEXT.participant} /handoff`, { until: /then Start new session, or Cancel/, timeoutMs: 120_000 });
    const asked = await lastResponse(page);
    const review = await panelFrame(page);
    await review.getByText('Review hand-off summary').first().waitFor({ timeout: 60_000 });
    await review.getByRole('button', { name: 'Start new session', exact: true }).waitFor({ timeout: 20_000 });
    await retrying('scrolling to the review', async () => (await panelFrame(page)).locator(SELECTORS.reviewHeading).evaluate((heading) => heading.scrollIntoView({ block: 'start' })));
    await page.waitForTimeout(400);
    await shot('demo-10-handoff-words');
    await retrying('clicking Start new session', async () => (await panelFrame(page)).getByRole('button', { name: 'Start new session', exact: true }).click());
    const started = await followed(page, 'after the hand-off', (view) => view.title === `Continues “${DOCS_REQUEST}”`);
    if (started.reserved !== before.reserved) throw new Error(`the hand-off reserves ${started.reserved} for output, the same model's sessions ${before.reserved}`);
    // The same request ends saying so (the chat folds what it said before into its steps).
    await lasting('the hand-off reply', () => lastResponse(page), (newest) => newest.index === asked.index && /Started a new session from the reviewed summary/.test(newest.text));
    await page.waitForTimeout(400);
    await shot('demo-11-handoff-started');
    await sendChat(page, `${TEXT.participant} ${AFTER_HANDOFF_REQUEST}`, { until: /The docs list four rules/, timeoutMs: 120_000 });
    const named = await followed(page, 'after the hand-off’s first request', (view) => view.title === AFTER_HANDOFF_REQUEST);

    // Sessions…: every row titled by its first request; the hand-off names its source by title and start time.
    await runCommand(page, 'Compaction Agent: Sessions...');
    const handoffRow = page.locator(SELECTORS.quickInputRow, { hasText: AFTER_HANDOFF_REQUEST }).first();
    await handoffRow.waitFor({ timeout: 15_000 });
    const rowText = (await handoffRow.innerText()).replace(/\s+/g, ' ');
    if (!rowText.includes(`hand-off from “${DOCS_REQUEST}” (started `)) throw new Error(`the hand-off row does not name its source by title and start: "${rowText}"`);
    const titles = (await page.locator(`${SELECTORS.quickInputRow} .label-name`).allInnerTexts()).map((title) => title.trim());
    for (const expected of [DEMO_TURNS[0].ask, DOCS_REQUEST, AFTER_HANDOFF_REQUEST]) {
      if (!titles.some((title) => title.endsWith(expected))) throw new Error(`Sessions… lacks a row titled "${expected}": ${JSON.stringify(titles)}`);
    }
    await page.waitForTimeout(400);
    await shot('demo-12-sessions');
    await page.keyboard.press('Escape');

    // A window reload: the latest session again, not "no session yet".
    const beforeReload = await budgetStatusText(page);
    await page.reload();
    await page.locator(SELECTORS.workbench).waitFor({ timeout: 60_000 });
    const reloaded = await lasting('the budget item after the reload', () => budgetStatusText(page), (text) => budgetFigures(text) !== undefined, { timeoutMs: 90_000 });
    if (budgetFigures(reloaded).usable !== named.figures.usable) throw new Error(`after the reload the budget item shows "${reloaded}", before it "${beforeReload}"`);
    await followed(page, 'after the reload', (view) => view.title === AFTER_HANDOFF_REQUEST);
    await page.waitForTimeout(400);
    await shot('demo-13-after-reload');

    // A branch switch (the demo's first session has the compacted branch beside the restored one): both screens follow it.
    await runCommand(page, 'Compaction Agent: Sessions...');
    await page.locator(SELECTORS.quickInputRow, { hasText: DEMO_TURNS[0].ask }).first().click({ timeout: 15_000 });
    await page.locator(SELECTORS.quickInputRow, { hasText: 'Open' }).first().click({ timeout: 15_000 });
    const first = await followed(page, 'the first session, opened', (view) => view.title === DEMO_TURNS[0].ask);
    await runCommand(page, 'Compaction Agent: Switch Branch');
    // The branch pick's rows carry a branch icon (the current one a check): waiting for them skips the palette's rows, which linger while the pick replaces them.
    const other = page.locator(SELECTORS.quickInputRow).filter({ has: page.locator('.codicon-git-branch') }).first();
    await other.waitFor({ timeout: 15_000 });
    await page.locator(SELECTORS.quickInputRow).filter({ has: page.locator('.codicon-check') }).first().waitFor({ timeout: 15_000 });
    await retrying('clicking the other branch', () => other.click());
    // The other branch shows other turns (its totals may match: compacting the same history twice gives the same sizes).
    const switched = await followed(page, 'after the branch switch', (view) => view.title === DEMO_TURNS[0].ask && (view.headline !== first.headline || view.turns !== first.turns));
    console.log(`    first session: ${first.headline} (${first.turns.slice(0, 80)}) → after the switch: ${switched.headline} (${switched.turns.slice(0, 80)})`);
    await page.waitForTimeout(400);
    await shot('demo-14-branch-switched');
  },
};
