// UI check: "Restore Pre-Compaction Branch" from the palette brings back the full earlier context for the next request.
import { SELECTORS, TEXT } from '../selectors.mjs';
import { sendChat } from '../chat.mjs';
import { agentTurnRequests, clearRecordedRequests, hasMessage, keepRequest, messagesText, recordedRequests } from '../endpointRecord.mjs';
import { runCommand } from '../workbench.mjs';
import { FIRST_TURN } from './chatStreams.mjs';
import { SUMMARY_MARKER } from './compactReview.mjs';

export const restoreBranch = {
  name: 'Restore Pre-Compaction Branch (palette quick pick) restores the full context',
  async run({ page, shot, endpoint }) {
    await runCommand(page, TEXT.restoreCommand);
    const row = page.locator(SELECTORS.quickInputRow, { hasText: 'tokens, ' }).first();
    await row.waitFor({ timeout: 15_000 });
    const rowText = (await row.innerText()).replace(/\s+/g, ' ');
    // A row says what the compaction covered (turns, first request), not the summary's first heading.
    if (!/→/.test(rowText) || !/edited/.test(rowText) || !/turns? from “/.test(rowText)) throw new Error(`the quick pick row lacks what it covered, the token change or the edited mark: "${rowText}"`);
    await page.waitForTimeout(400); // the quick pick fades in
    await shot('09-restore-pick');
    await row.click();
    await page.locator(SELECTORS.quickInput).waitFor({ state: 'hidden', timeout: 10_000 });

    await clearRecordedRequests(endpoint);
    const after = await sendChat(page, `${TEXT.participant} continue on the restored branch`, { until: /Done with request/ });
    if (!/Restored the full history/.test(after.text)) throw new Error(`the reply does not note the restore: "${after.text.slice(0, 200)}"`);
    const turns = agentTurnRequests(await recordedRequests(endpoint));
    if (turns.length === 0) throw new Error('the scripted endpoint recorded no request after the restore');
    const sent = messagesText(turns[0]);
    if (!hasMessage(turns[0], 'user', FIRST_TURN)) {
      throw new Error(`the request after the restore lacks the first user message (${keepRequest('after-restore', turns[0])})`);
    }
    if (sent.includes(SUMMARY_MARKER) || sent.includes('Summary of the conversation so far')) {
      throw new Error(`the request after the restore still carries the summary (${keepRequest('after-restore', turns[0])})`);
    }
    await shot('10-restored-reply');
  },
};
