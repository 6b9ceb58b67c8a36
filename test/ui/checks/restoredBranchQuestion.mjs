// UI check (issue 33): after the demo's undo, the natural next request overflows the restored branch: the chat asks in place (Compact now, Prune now, Stop) and the same request goes on after Compact now.
import { SELECTORS, TEXT } from '../selectors.mjs';
import { lastResponse } from '../chat.mjs';
import { lasting, retrying } from '../steady.mjs';
import { budgetFigures, budgetStatusText, panelView } from '../webview.mjs';
import { typeInChat } from '../workbench.mjs';

/** A request the demo answers with its longest plan (it reads the whole docs again): more than the restored branch has room for. */
export const AFTER_UNDO_REQUEST = 'add a test for trailing dashes';
const QUESTION = /nothing is compacted without asking/;
const FINISHED = /This is the scripted demo endpoint, not a model/;

/** The newest response's row in the chat list (virtualized: the row with the highest data-index). */
function newestRow(page, index) {
  return page.locator(`.monaco-list-row[data-index="${index}"]`);
}

/** Clicks Allow on an inline confirmation when one shows (a newcomer's defaults ask before commands and edits). */
async function allowIfAsked(page) {
  const allow = page.locator(`${SELECTORS.chatConfirmation}:visible`).last().locator(SELECTORS.button, { hasText: /^\s*Allow/ }).first();
  if (await allow.isVisible().catch(() => false)) await allow.click().catch(() => undefined);
}

export const restoredBranchQuestion = {
  name: 'on the restored branch, a request that would overflow asks in place (Compact now, Prune now, Stop) and goes on after Compact now',
  async run({ page, shot }) {
    const before = await lasting('the budget item on the restored branch', () => budgetStatusText(page), (text) => budgetFigures(text) !== undefined);
    const previous = (await lastResponse(page)).index;
    await typeInChat(page, `${TEXT.participant} ${AFTER_UNDO_REQUEST}`);
    if (await page.locator(SELECTORS.suggestWidgetVisible).isVisible().catch(() => false)) await page.keyboard.press('Escape');
    await page.keyboard.press('Enter');

    // The question shows in the running reply, with its buttons (the panel's words for the same actions).
    const asked = await lasting(
      'the question in the running reply',
      async () => {
        await allowIfAsked(page);
        const newest = await lastResponse(page);
        return newest.index > previous ? newest : undefined;
      },
      (newest) => QUESTION.test(newest.text),
      { timeoutMs: 180_000, holdMs: 500 },
    );
    if (FINISHED.test(asked.text)) throw new Error(`the request finished without asking: "${asked.text.slice(-400)}"`);
    const row = newestRow(page, asked.index);
    for (const label of ['Compact now', 'Stop']) await row.getByRole('button', { name: label, exact: true }).first().waitFor({ timeout: 20_000 });
    const offered = (await row.locator(SELECTORS.button).allInnerTexts()).map((text) => text.trim()).filter(Boolean);
    console.log(`    the question offers: ${offered.join(', ')}; budget before: ${before}`);
    await row.getByRole('button', { name: 'Compact now', exact: true }).first().scrollIntoViewIfNeeded();
    await page.waitForTimeout(400);
    await shot('demo-07-question');
    if (/@agent stopped/.test(asked.text)) throw new Error(`the request stopped instead of asking: "${asked.text.slice(-400)}"`);
    await retrying('clicking Compact now', () => newestRow(page, asked.index).getByRole('button', { name: 'Compact now', exact: true }).first().click());

    // The same request goes on: it compacts and finishes its work, with no second request.
    const done = await lasting(
      'the same request finishing',
      async () => {
        await allowIfAsked(page);
        return lastResponse(page);
      },
      (newest) => newest.index === asked.index && FINISHED.test(newest.text),
      { timeoutMs: 180_000, holdMs: 500 },
    );
    if (/@agent stopped/.test(done.text)) throw new Error(`the request stopped after the answer: "${done.text.slice(-500)}"`);
    if (!/compacted [\d.]+k? → [\d.]+k? tokens/i.test(done.text)) throw new Error(`the reply does not say it compacted: "${done.text.slice(-500)}"`);
    // Lasting: the branch is not paused any more, and the status item matches the panel.
    const panel = await lasting('the panel after the compaction', () => panelView(page), (view) => view.figures !== undefined && !/paused/.test(view.facts));
    const status = await lasting('the budget item after the compaction', () => budgetStatusText(page), (text) => budgetFigures(text)?.percent === panel.figures.percent);
    console.log(`    budget after: ${status}`);
    await page.waitForTimeout(400);
    await shot('demo-08-question-answered');
  },
};
