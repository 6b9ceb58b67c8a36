// UI check (issue 25): "New session from summary" in the panel: the summary is reviewed, then a new session starts from it.
import { TEXT } from '../selectors.mjs';
import { sendChat } from '../chat.mjs';
import { agentTurnRequests, clearRecordedRequests, keepRequest, messagesText, recordedRequests } from '../endpointRecord.mjs';
import { findFrameWith, openPanelFromStatusItem } from '../webview.mjs';

const AFTER_HANDOFF_TURN = 'continue in the new session';
const REVIEW_NOTE = 'Hand-off note: start from the slugify tests.';

export const panelHandoff = {
  name: 'New session from summary in the panel: the reviewed summary starts a new session the next chat continues',
  async run({ page, shot, endpoint }) {
    const frame = (await findFrameWith(page, '#drops-heading', 2_000).catch(() => undefined)) ?? (await openPanelFromStatusItem(page));
    const handoff = frame.getByRole('button', { name: 'New session from summary' });
    await handoff.scrollIntoViewIfNeeded();
    await handoff.click();
    const heading = frame.getByText('Review hand-off summary').first();
    await heading.waitFor({ timeout: 60_000 });
    const textarea = frame.locator('#summary-input');
    await textarea.click();
    await textarea.press('ControlOrMeta+End');
    await page.keyboard.type(`\n\n${REVIEW_NOTE}`, { delay: 5 });
    await frame.locator('#review-heading').evaluate((element) => element.scrollIntoView({ block: 'start' }));
    await page.waitForTimeout(600);
    await shot('17a-handoff-review');
    await frame.getByRole('button', { name: 'Start new session', exact: true }).click();
    await frame.getByText(/Started the session ".*\(hand-off\)" from the reviewed summary/).first().waitFor({ timeout: 20_000 });
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
  },
};
