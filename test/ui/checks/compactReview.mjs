// UI check (issue 6): /compact opens the review; a summary edited in the panel and applied is what the model is sent next, in place of older messages.
import { SELECTORS, TEXT } from '../selectors.mjs';
import { sendChat } from '../chat.mjs';
import { agentTurnRequests, clearRecordedRequests, keepRequest, messagesText, recordedRequests } from '../endpointRecord.mjs';
import { findFrameWith } from '../webview.mjs';
import { retrying } from '../steady.mjs';

/** Typed into the review's textarea; it must reach the model in the next request. */
export const SUMMARY_MARKER = 'Reviewer note: the slugify tests must keep their names.';
export const AFTER_COMPACT_TURN = 'continue after the compaction';

export const compactReview = {
  name: '/compact review: the edited summary is applied and sent to the model',
  async run({ page, shot, endpoint }) {
    // What the model was last sent: the compaction must take some of it away (the oldest turn's start may stay,
    // carried verbatim, when the cut falls inside that turn).
    const before = agentTurnRequests(await recordedRequests(endpoint)).at(-1);
    if (!before) throw new Error('the scripted endpoint recorded no agent request before the compaction');
    await sendChat(page, `${TEXT.participant} /compact keep the test names`, { until: /Context & Compaction|Nothing to compact/ });
    const frame = await findFrameWith(page, SELECTORS.reviewHeading, 30_000);
    const textarea = frame.locator(SELECTORS.summaryInput);
    await textarea.waitFor({ timeout: 10_000 });
    const proposed = await textarea.inputValue();
    if (!proposed.includes('Summary of the conversation')) throw new Error(`the review shows an unexpected summary: "${proposed.slice(0, 120)}"`);
    await textarea.click();
    await textarea.press('ControlOrMeta+End');
    await page.keyboard.type(`\n\n${SUMMARY_MARKER}`, { delay: 5 });
    await frame.getByText('· edited').first().waitFor({ timeout: 10_000 });
    // Show the review from its heading: proposal figures, instructions and the edited textarea together.
    await retrying('scrolling to the review', () => frame.locator(SELECTORS.reviewHeading).evaluate((heading) => heading.scrollIntoView({ block: 'start' })));
    await page.waitForTimeout(600); // the preview re-renders after a short pause
    await shot('07-review-edited');
    await frame.getByRole('button', { name: 'Apply', exact: true }).click();
    await frame.locator(SELECTORS.historyRow).first().waitFor({ timeout: 20_000 });
    await frame.locator(SELECTORS.reviewHeading).waitFor({ state: 'detached', timeout: 10_000 });
    await shot('08-compaction-applied');

    await clearRecordedRequests(endpoint);
    await sendChat(page, `${TEXT.participant} ${AFTER_COMPACT_TURN}`, { until: /Done with request/ });
    const turns = agentTurnRequests(await recordedRequests(endpoint));
    if (turns.length === 0) throw new Error('the scripted endpoint recorded no request after the compaction');
    const sent = messagesText(turns[0]);
    if (!sent.includes(SUMMARY_MARKER)) throw new Error(`the next request does not carry the edited summary (${keepRequest('after-compaction', turns[0])})`);
    const wire = (request) => (request.body?.messages ?? []).filter((message) => message.role !== 'system').map((message) => JSON.stringify([message.role, message.content ?? null, message.tool_calls ?? null]));
    const after = new Set(wire(turns[0]));
    if (wire(before).every((message) => after.has(message))) {
      throw new Error(`the next request still carries every message sent before the compaction (${keepRequest('after-compaction', turns[0])})`);
    }
  },
};
