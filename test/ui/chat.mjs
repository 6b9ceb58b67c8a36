// Sending chat requests through the real Chat view input and reading the streamed replies.
import { SELECTORS } from './selectors.mjs';
import { typeInChat } from './workbench.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The newest chat response as { index, text }: the chat list is virtualized (rows are recycled and not in DOM
 * order), so the newest is the row with the highest data-index. index is -1 when there is none.
 */
export async function lastResponse(page) {
  return page.evaluate((selector) => {
    let best = { index: -1, text: '' };
    for (const response of document.querySelectorAll(selector)) {
      const row = response.closest('.monaco-list-row');
      const index = Number(row?.getAttribute('data-index') ?? -1);
      if (index > best.index) best = { index, text: response.innerText };
    }
    return best;
  }, SELECTORS.chatResponse);
}

/**
 * Types `text` into the chat input and presses Enter, then polls the newest response until it matches `until`.
 * `onPoll(responseText)` runs at every poll (e.g. to sample the status bar while the reply streams).
 * Resolves to { text, seen } where `seen` holds every distinct response text observed while streaming.
 */
export async function sendChat(page, text, { until, timeoutMs = 60_000, onPoll } = {}) {
  const before = (await lastResponse(page)).index;
  await typeInChat(page, text);
  // A completion list left open would take the Enter.
  if (await page.locator(SELECTORS.suggestWidgetVisible).isVisible().catch(() => false)) await page.keyboard.press('Escape');
  await page.keyboard.press('Enter');
  const seen = new Set();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const newest = await lastResponse(page);
    const current = newest.index > before ? newest.text : '';
    if (current) seen.add(current);
    if (onPoll) await onPoll(current);
    if (current && until.test(current)) return { text: current, seen: [...seen] };
    if (Date.now() > deadline) {
      throw new Error(`no reply to "${text}" matched ${until} within ${timeoutMs} ms; last reply: "${current.slice(0, 300)}"`);
    }
    await sleep(100);
  }
}

/**
 * A session of the check's own in the current chat: `/new`, then `turns` short tool-using requests (the scripted
 * endpoint answers each with two tool steps and "Done with request N"), so a check does not build on another's state.
 */
export async function freshSession(page, label, turns = 2) {
  await sendChat(page, `@agent /new`, { until: /Started a new session/, timeoutMs: 120_000 });
  for (let turn = 1; turn <= turns; turn++) await sendChat(page, `@agent ${label}, request ${turn}: list the workspace`, { until: /Done with request/, timeoutMs: 120_000 });
}
