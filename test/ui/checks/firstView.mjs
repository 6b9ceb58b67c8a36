// UI check (issues 24, 40): nothing starts the extension with the window; Ask @agent (palette, Chat title bar) does, the budget item then says there is no session yet, and the chat is addressed to @agent exactly once.
import { SELECTORS } from '../selectors.mjs';
import { budgetStatusText } from '../webview.mjs';
import { runCommandOnceListed } from '../workbench.mjs';

async function chatInputText(page) {
  return (await page.locator(`${SELECTORS.chatInput} .view-lines`).first().innerText().catch(() => '')).replace(/\s+/g, ' ').trim();
}

/** The budget item's text once it says "no session yet" (waiting up to 30 s), else what it showed. */
async function noSessionYet(page) {
  let status;
  for (let tries = 0; tries < 120 && !(status && /no session yet/.test(status)); tries++) {
    status = await budgetStatusText(page);
    if (!(status && /no session yet/.test(status))) await page.waitForTimeout(250);
  }
  return status;
}

export const firstView = {
  name: 'the first view: Ask @agent starts the extension, the budget item says there is no session yet, and the chat is addressed to @agent once',
  async run({ page, shot }) {
    // Once from the palette, once from the Chat view's title bar (the chat then already holds "@agent ").
    for (let round = 0; round < 2; round++) {
      if (round === 0) await runCommandOnceListed(page, 'Compaction Agent: Ask @agent');
      else await page.locator(SELECTORS.askAgentTitleAction).first().click({ timeout: 15_000 });
      let text = '';
      for (let tries = 0; tries < 80 && !/@agent/.test(text); tries++) {
        await page.waitForTimeout(250);
        text = await chatInputText(page);
      }
      if ((text.match(/@agent/g) ?? []).length !== 1) throw new Error(`after Ask @agent (${round + 1}×) the chat input holds "${text}"`);
      if (round > 0) continue;
      // The command started the extension (the window did not): before any request the budget item says so.
      const status = await noSessionYet(page);
      if (!status || !/no session yet/.test(status)) throw new Error(`after Ask @agent, before any request, the budget item shows "${status}"`);
    }
    await shot('01b-first-view');
    // Leave the input empty for the next check.
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Backspace');
  },
};
