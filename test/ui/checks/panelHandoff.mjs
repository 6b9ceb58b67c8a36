// UI check (issues 25, 33): "New session from summary" in the panel: the summary is reviewed, a new session starts from it, the status item and panel show it at once, and Sessions… names its source.
import { SELECTORS, TEXT } from '../selectors.mjs';
import { sendChat } from '../chat.mjs';
import { agentTurnRequests, clearRecordedRequests, keepRequest, messagesText, recordedRequests } from '../endpointRecord.mjs';
import { lasting, retrying } from '../steady.mjs';
import { budgetStatusText, panelFrame } from '../webview.mjs';
import { runCommand } from '../workbench.mjs';

const AFTER_HANDOFF_TURN = 'continue in the new session';
const REVIEW_NOTE = 'Hand-off note: start from the slugify tests.';

/** The session title in the panel's header. */
async function panelTitle(page) {
  return (await (await panelFrame(page)).locator('#session-title').innerText()).trim();
}

export const panelHandoff = {
  name: 'New session from summary in the panel: the reviewed summary starts a new session the status item, the panel and the next chat follow',
  async run({ page, shot, endpoint }) {
    const source = await lasting('the source session in the panel header', () => panelTitle(page), (title) => title.length > 0 && title !== 'No active session');
    await retrying('clicking New session from summary', async () => {
      const handoff = (await panelFrame(page)).getByRole('button', { name: 'New session from summary' });
      await handoff.scrollIntoViewIfNeeded();
      await handoff.click();
    });
    await (await panelFrame(page)).getByText('Review hand-off summary').first().waitFor({ timeout: 60_000 });
    // The review's buttons: Start new session (the chat's word for it too), Regenerate, Cancel.
    await (await panelFrame(page)).getByRole('button', { name: 'Start new session', exact: true }).waitFor({ timeout: 20_000 });
    await retrying('adding a note to the summary', async () => {
      const textarea = (await panelFrame(page)).locator(SELECTORS.summaryInput);
      await textarea.click();
      await textarea.press('ControlOrMeta+End');
      await page.keyboard.type(`\n\n${REVIEW_NOTE}`, { delay: 5 });
    });
    await lasting('the note in the summary', async () => (await panelFrame(page)).locator(SELECTORS.summaryInput).inputValue(), (value) => value.includes(REVIEW_NOTE), { holdMs: 500 });
    await retrying('scrolling to the review', async () => (await panelFrame(page)).locator(SELECTORS.reviewHeading).evaluate((element) => element.scrollIntoView({ block: 'start' })));
    await page.waitForTimeout(600);
    await shot('17a-handoff-review');
    await retrying('clicking Start new session', async () => (await panelFrame(page)).getByRole('button', { name: 'Start new session', exact: true }).click());

    // From the moment it starts: the panel shows the new session (titled after its source until its first request), the status item its budget.
    await lasting('the panel on the new session', () => panelTitle(page), (title) => title === `Continues “${source}”`);
    await (await panelFrame(page)).getByText(/Started a new session from the reviewed summary/).first().waitFor({ timeout: 20_000 });
    const status = await lasting('the budget item on the new session', () => budgetStatusText(page), (text) => /\d+% [\d.]+k?\/[\d.]+k/.test(text ?? ''));
    // The header, the banner and the budget in the picture.
    await retrying('scrolling the panel to its top', async () => (await panelFrame(page)).evaluate(() => window.scrollTo(0, 0)));
    await page.waitForTimeout(400);
    await shot('17b-handoff-started');

    await clearRecordedRequests(endpoint);
    await sendChat(page, `${TEXT.participant} ${AFTER_HANDOFF_TURN}`, { until: /Done with request/ });
    const turns = agentTurnRequests(await recordedRequests(endpoint));
    if (turns.length === 0) throw new Error('the scripted endpoint recorded no request after the hand-off');
    const sent = messagesText(turns[0]);
    if (!sent.includes(REVIEW_NOTE)) throw new Error(`the first request of the new session does not carry the reviewed summary (${keepRequest('after-handoff', turns[0])})`);
    const users = (turns[0].body?.messages ?? []).filter((message) => message.role === 'user');
    if (users.length !== 2) throw new Error(`the new session sent ${users.length} user messages, expected the summary and the request (${keepRequest('after-handoff', turns[0])})`);
    // Its first request names it.
    await lasting('the panel title after the first request', () => panelTitle(page), (title) => title === AFTER_HANDOFF_TURN);
    console.log(`    budget item after the hand-off: ${status}`);

    // Sessions…: the hand-off's row names its source by title and start time.
    await runCommand(page, 'Compaction Agent: Sessions...');
    const row = page.locator(SELECTORS.quickInputRow, { hasText: AFTER_HANDOFF_TURN }).first();
    await row.waitFor({ timeout: 15_000 });
    const rowText = await lasting('the hand-off row', async () => (await row.innerText()).replace(/\s+/g, ' '), (text) => text.includes('hand-off from'), { holdMs: 300 });
    if (!rowText.includes(`hand-off from “${source}” (started `)) throw new Error(`the hand-off row does not name its source by title and start: "${rowText}"`);
    const titles = await page.locator(`${SELECTORS.quickInputRow} .label-name`).allInnerTexts();
    await page.waitForTimeout(400);
    await shot('17c-sessions-list');
    await page.keyboard.press('Escape');
    if (titles.some((title) => /^New session$/.test(title.trim()))) throw new Error(`a session is still titled "New session" after its first request: ${JSON.stringify(titles)}`);
  },
};
