// UI check (issue 24): before any request the budget item is there and says so; Ask @agent (palette, Chat title bar) addresses the chat to @agent exactly once.
import { SELECTORS } from '../selectors.mjs';
import { budgetStatusText } from '../webview.mjs';
import { runCommand } from '../workbench.mjs';

async function chatInputText(page) {
  return (await page.locator(`${SELECTORS.chatInput} .view-lines`).first().innerText().catch(() => '')).replace(/\s+/g, ' ').trim();
}

export const firstView = {
  name: 'the first view: the budget item says there is no session yet and Ask @agent addresses the chat to @agent once',
  async run({ page, shot }) {
    let status;
    for (let tries = 0; tries < 120 && !status; tries++) {
      status = await budgetStatusText(page);
      if (!status) await page.waitForTimeout(250);
    }
    if (!status || !/no session yet/.test(status)) throw new Error(`before any request the budget item shows "${status}"`);
    // Once from the palette, once from the Chat view's title bar (the chat then already holds "@agent ").
    for (let round = 0; round < 2; round++) {
      if (round === 0) await runCommand(page, 'Compaction Agent: Ask @agent');
      else await page.locator(SELECTORS.askAgentTitleAction).first().click({ timeout: 15_000 });
      let text = '';
      for (let tries = 0; tries < 80 && !/@agent/.test(text); tries++) {
        await page.waitForTimeout(250);
        text = await chatInputText(page);
      }
      if ((text.match(/@agent/g) ?? []).length !== 1) throw new Error(`after Ask @agent (${round + 1}×) the chat input holds "${text}"`);
    }
    await shot('01b-first-view');
    // Leave the input empty for the next check.
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Backspace');
  },
};
