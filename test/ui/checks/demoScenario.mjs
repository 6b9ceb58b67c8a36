// UI check (issue 24): the README's demo with default settings: three requests fill the budget and prune old outputs, /compact is reviewed, applied, and undone from the palette.
import { SELECTORS, TEXT } from '../selectors.mjs';
import { lastResponse } from '../chat.mjs';
import { agentTurnRequests, clearRecordedRequests, keepRequest, messagesText, recordedRequests } from '../endpointRecord.mjs';
import { lasting, retrying } from '../steady.mjs';
import { budgetFigures, budgetStatusText, findFrameWith, panelView } from '../webview.mjs';
import { chatInput, runCommand, runCommandOnceListed, typeInChat } from '../workbench.mjs';

/** What the README tells a newcomer to type, in order (test/support/scenarios/demoSession.ts answers them). */
export const DEMO_TURNS = [
  { ask: 'the slugify test fails, please fix it', done: /Fixed: `?slugify`? now trims/ },
  { ask: 'now check the docs for other slug rules we break', done: /The docs list four rules/ },
  { ask: 'run the tests again', done: /All tests pass/ },
];

const PRUNE_NOTE = /pruned \d+ old tool output\(s\)/i;
const PLACEHOLDER = /pruned from the context to save space/;

/** Sends `text` and waits for `done`, allowing every inline confirmation on the way (a newcomer's defaults ask). */
async function sendAllowing(page, text, done, timeoutMs = 120_000) {
  const before = (await lastResponse(page)).index;
  await typeInChat(page, text);
  if (await page.locator(SELECTORS.suggestWidgetVisible).isVisible().catch(() => false)) await page.keyboard.press('Escape');
  await page.keyboard.press('Enter');
  let allowed = 0;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const newest = await lastResponse(page);
    if (newest.index > before && done.test(newest.text)) return { text: newest.text, allowed };
    const allow = page.locator(`${SELECTORS.chatConfirmation}:visible`).last().locator(SELECTORS.button, { hasText: /^\s*Allow/ }).first();
    if (await allow.isVisible().catch(() => false)) {
      await allow.click().catch(() => undefined);
      allowed++;
    }
    if (Date.now() > deadline) throw new Error(`no reply to "${text}" matched ${done}; last: ${JSON.stringify(newest.text.slice(-600))}`);
    await page.waitForTimeout(250);
  }
}

function percentOf(statusText) {
  const match = /(\d+)%/.exec(statusText ?? '');
  return match ? Number(match[1]) : undefined;
}

export const demoScenario = {
  name: "the README's demo with default settings: the budget fills, old outputs are pruned, /compact is reviewed, applied and undone",
  async run({ page, shot, endpoint }) {
    // Nothing starts the extension with the window: in this fresh profile the picker lists the endpoint's model once
    // something has (the README's demo starts with Ask @agent). A request sent before that does not reach @agent.
    await runCommandOnceListed(page, 'Compaction Agent: Ask @agent');
    await chatInput(page);
    await page.locator(SELECTORS.chatInputPart, { hasText: TEXT.demoModel }).first().waitFor({ timeout: 60_000 });
    const budget = [await budgetStatusText(page)];
    const replies = [];
    for (const [index, turn] of DEMO_TURNS.entries()) {
      if (index === DEMO_TURNS.length - 1) await clearRecordedRequests(endpoint);
      const { text } = await sendAllowing(page, `${TEXT.participant} ${turn.ask}`, turn.done);
      replies.push(text);
      budget.push(await budgetStatusText(page));
      if (index === 0) await shot('demo-01-first-request');
    }
    console.log(`    budget: ${budget.join(' → ')}`);
    const percents = budget.slice(1).map(percentOf);
    if (percents.some((percent) => percent === undefined)) throw new Error(`the budget item shows no percentage: ${JSON.stringify(budget)}`);
    if (!(percents[1] > percents[0])) throw new Error(`the budget did not fill from the first to the second request: ${JSON.stringify(budget)}`);

    // Pruning: said in the third reply, and lasting in what the model was sent (placeholders instead of outputs).
    if (!PRUNE_NOTE.test(replies[2])) throw new Error(`the third reply does not report pruning: "${replies[2].slice(0, 400)}"`);
    const turns = agentTurnRequests(await recordedRequests(endpoint));
    const withPlaceholder = turns.find((request) => PLACEHOLDER.test(messagesText(request)));
    if (!withPlaceholder) throw new Error(`no request of the third turn carried a pruned placeholder (${turns[0] ? keepRequest('demo-third', turns[0]) : 'no request recorded'})`);
    await shot('demo-02-pruned');

    // The review: /compact proposes a summary in the panel; Apply.
    const before = (await lastResponse(page)).index;
    await typeInChat(page, `${TEXT.participant} /compact`);
    if (await page.locator(SELECTORS.suggestWidgetVisible).isVisible().catch(() => false)) await page.keyboard.press('Escape');
    await page.keyboard.press('Enter');
    const frame = await findFrameWith(page, SELECTORS.reviewHeading, 60_000);
    const textarea = frame.locator(SELECTORS.summaryInput);
    await textarea.waitFor({ timeout: 20_000 });
    if (!(await textarea.inputValue()).includes('Summary of the conversation')) throw new Error('the review shows no proposed summary');
    if ((await lastResponse(page)).index <= before) throw new Error('/compact left no reply in the chat');
    await retrying('scrolling to the review', () => frame.locator(SELECTORS.reviewHeading).evaluate((heading) => heading.scrollIntoView({ block: 'start' })));
    await page.waitForTimeout(600);
    await shot('demo-03-review');
    await frame.getByRole('button', { name: 'Apply', exact: true }).click();
    await frame.locator(SELECTORS.historyRow).first().waitFor({ timeout: 30_000 });
    await frame.locator(SELECTORS.reviewHeading).waitFor({ state: 'detached', timeout: 20_000 });
    await shot('demo-04-applied');

    // The undo: Restore Pre-Compaction Branch from the palette.
    await runCommand(page, TEXT.restoreCommand);
    const row = page.locator(SELECTORS.quickInputRow, { hasText: 'tokens, ' }).first();
    await row.waitFor({ timeout: 20_000 });
    await page.waitForTimeout(400);
    await shot('demo-05-restore-pick');
    await row.click();
    await page.locator('.notifications-toasts', { hasText: 'Restored the full history' }).first().waitFor({ timeout: 30_000 });
    // Lasting: the panel's branch has no compaction any more, and says automatic compaction waits for you.
    const panel = await findFrameWith(page, SELECTORS.panelContent, 30_000);
    await panel.getByText('paused on this restored branch').first().waitFor({ timeout: 30_000 });
    // The status item follows the restore too: the same figures as the panel's restored branch.
    const restored = await lasting('the panel on the restored branch', () => panelView(page), (view) => view.figures !== undefined && /paused/.test(view.facts));
    await lasting('the budget item on the restored branch', () => budgetStatusText(page), (text) => budgetFigures(text)?.used === restored.figures.used);
    await shot('demo-06-restored');
  },
};
