// UI check (issue 25): a turn dropped from the panel is measured before Drop is clicked, and the next request leaves it out.
import { TEXT } from '../selectors.mjs';
import { sendChat } from '../chat.mjs';
import { agentTurnRequests, clearRecordedRequests, hasMessage, keepRequest, recordedRequests } from '../endpointRecord.mjs';
import { findFrameWith, openPanelFromStatusItem } from '../webview.mjs';
import { retrying } from '../steady.mjs';

export const DEAD_END_TURN = 'try the dead-end approach of renaming every slugify export';
const AFTER_DROP_TURN = 'continue without the dead end';

export const panelDrop = {
  name: 'Drop from context in the panel: the drop is measured before it is confirmed and the next request leaves the turn out',
  async run({ page, shot, endpoint }) {
    await sendChat(page, `${TEXT.participant} ${DEAD_END_TURN}`, { until: /Done with request/ });
    const frame = (await findFrameWith(page, '#drops-heading', 2_000).catch(() => undefined)) ?? (await openPanelFromStatusItem(page));
    const drop = frame.getByRole('button', { name: new RegExp(`^Drop turn \\d+: ${DEAD_END_TURN}`) }).first();
    await drop.waitFor({ timeout: 20_000 });
    await retrying('scrolling to the turn', () => drop.scrollIntoViewIfNeeded());
    await drop.click();
    const measured = frame.getByText(/It frees ~[\d.]+k? tokens \([\d.]+k? → [\d.]+k? of [\d.]+k? usable\)/).first();
    await measured.waitFor({ timeout: 20_000 });
    await retrying('scrolling to the drops', () => frame.locator('#drops-heading').evaluate((heading) => heading.scrollIntoView({ block: 'start' })));
    await page.waitForTimeout(400);
    await shot('16a-drop-measured');
    await frame.getByRole('button', { name: 'Drop', exact: true }).click();
    await frame.getByText(/Dropped turn \d+: the turn/).first().waitFor({ timeout: 20_000 });
    await frame.getByText('dropped', { exact: true }).first().waitFor({ timeout: 10_000 });
    await page.waitForTimeout(400);
    await shot('16b-dropped');

    await clearRecordedRequests(endpoint);
    await sendChat(page, `${TEXT.participant} ${AFTER_DROP_TURN}`, { until: /Done with request/ });
    const turns = agentTurnRequests(await recordedRequests(endpoint));
    if (turns.length === 0) throw new Error('the scripted endpoint recorded no request after the drop');
    if (hasMessage(turns[0], 'user', DEAD_END_TURN)) throw new Error(`the request after the drop still carries the dropped turn (${keepRequest('after-drop', turns[0])})`);
    if (!hasMessage(turns[0], 'user', AFTER_DROP_TURN)) throw new Error(`the request after the drop lacks its own message (${keepRequest('after-drop', turns[0])})`);
  },
};
