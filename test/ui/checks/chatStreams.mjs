// UI check: an @agent request streams a reply with tool progress; the budget item shows figures and changes as the session grows.
import { TEXT } from '../selectors.mjs';
import { lastResponse, sendChat } from '../chat.mjs';
import { budgetStatusText } from '../webview.mjs';
import { agentTurnRequests, clearRecordedRequests, recordedRequests } from '../endpointRecord.mjs';

/** The first turn's wording; the restore check later looks for it in what the model is sent. */
export const FIRST_TURN = 'describe the workspace layout of the slugify project';
export const SECOND_TURN = 'now check the slugify tests folder';

const DONE = /Done with request/;

export const chatStreams = {
  name: 'an @agent request streams with tool progress and the budget item tracks the session',
  async run({ page, shot, endpoint }) {
    const statusTexts = [];
    const sample = async () => {
      const text = await budgetStatusText(page);
      // Before the session's first figures the item says "no session yet": only budget figures count here.
      if (text && /%/.test(text) && statusTexts.at(-1) !== text) statusTexts.push(text);
    };
    await clearRecordedRequests(endpoint);
    const first = await sendChat(page, `${TEXT.participant} ${FIRST_TURN}`, { until: DONE, onPoll: sample });
    await sample();
    await shot('04-chat-reply');
    if (!first.text.includes(TEXT.demoLabel)) throw new Error(`the reply lacks the demo label: "${first.text.slice(0, 200)}"`);
    // Lasting evidence that the tools ran: the endpoint was sent their results. That they were shown: tool progress
    // ("read_file {...}") is transient in VS Code's chat (each line is replaced by the next content, so a fast turn
    // can pass between two polls); what stays in the finished reply is the "Completed N steps" header.
    const turns = agentTurnRequests(await recordedRequests(endpoint));
    if (!turns.some((request) => (request.body?.messages ?? []).some((message) => message.role === 'tool'))) {
      throw new Error(`the endpoint was never sent a tool result during the first request (${turns.length} agent requests)`);
    }
    const progress = /(read_file|list_dir) \{"path"/;
    let finished = first.text;
    for (const until = Date.now() + 30_000; !/Completed \d+ steps?/.test(finished) && Date.now() < until; ) {
      await page.waitForTimeout(200);
      finished = (await lastResponse(page)).text;
    }
    if (!first.seen.some((text) => progress.test(text)) && !/Completed \d+ steps?/.test(finished)) {
      throw new Error(`the reply shows no tool step, neither live nor in its finished header: ${JSON.stringify(finished.slice(0, 300))}`);
    }
    if (statusTexts.length === 0) throw new Error('the budget status item never appeared during the first request');
    // The "~" of a session's first request is checked by the setup check, which makes that request.
    const afterFirst = statusTexts.at(-1);
    if (!/\d+%.*\d/.test(afterFirst)) throw new Error(`the budget text has no figures: "${afterFirst}"`);

    await sendChat(page, `${TEXT.participant} ${SECOND_TURN}`, { until: DONE });
    // The item is updated when the request's last usage report is handled, which on a busy machine can come well
    // after the reply's text: wait for the lasting change, not for a moment.
    const deadline = Date.now() + 60_000;
    let afterSecond = await budgetStatusText(page);
    while (afterSecond === afterFirst && Date.now() < deadline) {
      await page.waitForTimeout(200);
      afterSecond = await budgetStatusText(page);
    }
    if (!afterSecond || afterSecond === afterFirst) {
      throw new Error(`the budget text did not change after the second request: "${afterFirst}" → "${afterSecond}"`);
    }
    console.log(`    budget text: ${statusTexts.join(' → ')} → ${afterSecond}`);
    await shot('05-status-item');
  },
};
