// UI check (issue 13): restore-then-continue from the panel's history button; the next request carries every turn, no summary.
import { SELECTORS, TEXT } from '../selectors.mjs';
import { sendChat } from '../chat.mjs';
import { agentTurnRequests, clearRecordedRequests, hasMessage, keepRequest, messagesText, recordedRequests } from '../endpointRecord.mjs';
import { findFrameWith } from '../webview.mjs';
import { FIRST_TURN } from './chatStreams.mjs';
import { AFTER_COMPACT_TURN } from './compactReview.mjs';
import { retrying } from '../steady.mjs';

const AFTER_PANEL_RESTORE = 'continue after restoring from the panel';

export const panelRestore = {
  name: 'Restore from the panel history: every later turn comes back and nothing is compacted without asking',
  async run({ page, shot, endpoint }) {
    await sendChat(page, `${TEXT.participant} /compact keep the test names`, { until: /Context & Compaction|Nothing to compact/ });
    const frame = await findFrameWith(page, SELECTORS.reviewHeading, 30_000);
    await frame.getByRole('button', { name: 'Apply', exact: true }).click();
    await frame.locator(SELECTORS.reviewHeading).waitFor({ state: 'detached', timeout: 20_000 });
    const restore = frame.getByRole('button', { name: /^Restore pre-compaction branch: before the compaction/ }).first();
    await restore.waitFor({ timeout: 20_000 });
    await retrying('scrolling to the restore button', () => restore.scrollIntoViewIfNeeded());
    await restore.click();
    await frame.getByText(/Restored the full history from before that compaction/).first().waitFor({ timeout: 20_000 });
    await page.waitForTimeout(400);
    await shot('10a-panel-restored');

    await clearRecordedRequests(endpoint);
    const after = await sendChat(page, `${TEXT.participant} ${AFTER_PANEL_RESTORE}`, { until: /Done with request/ });
    if (/@agent stopped/.test(after.text)) throw new Error(`the request after the panel restore stopped: "${after.text.slice(0, 300)}"`);
    const turns = agentTurnRequests(await recordedRequests(endpoint));
    if (turns.length === 0) throw new Error('the scripted endpoint recorded no request after the panel restore');
    const sent = messagesText(turns[0]);
    for (const text of [FIRST_TURN, AFTER_COMPACT_TURN]) {
      if (!hasMessage(turns[0], 'user', text)) throw new Error(`the request after the panel restore lacks the turn "${text}" (${keepRequest('after-panel-restore', turns[0])})`);
    }
    if (sent.includes('The earlier part of this conversation was compacted')) throw new Error(`the request after the panel restore still carries a summary (${keepRequest('after-panel-restore', turns[0])})`);
    await shot('10b-panel-restored-reply');
  },
};
