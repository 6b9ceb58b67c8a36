// UI check: the Chat view's model picker offers (and uses) the scripted endpoint's model from our provider.
import { SELECTORS, TEXT } from '../selectors.mjs';
import { chatInput } from '../workbench.mjs';

export const modelPicker = {
  name: "the chat model picker shows the demo endpoint's model",
  async run({ page, shot, endpoint }) {
    await chatInput(page);
    const inputPart = page.locator(SELECTORS.chatInputPart).first();
    // The picker button shows the selected model's name; the provider resolves lazily, so allow for it.
    const picker = inputPart.getByRole('button', { name: new RegExp(TEXT.demoModel) }).first();
    const shown = await picker.waitFor({ timeout: 20_000 }).then(() => true, () => false);
    if (!shown) {
      const text = (await inputPart.innerText().catch(() => '')).replace(/\s+/g, ' ');
      throw new Error(`the chat input shows no "${TEXT.demoModel}" model picker; it shows: "${text.slice(0, 200)}"`);
    }
    await picker.click();
    const row = page.locator('.monaco-list-row, .action-widget .action-item', { hasText: TEXT.demoModel }).first();
    await row.waitFor({ timeout: 10_000 });
    // Our provider labels each model with the endpoint it comes from.
    const host = new URL(endpoint.url).host;
    const rowText = (await row.innerText()).replace(/\s+/g, ' ');
    if (!rowText.includes(host)) throw new Error(`the picker row does not name the endpoint ${host}: "${rowText}"`);
    await shot('03-model-picker');
    await page.keyboard.press('Escape');
  },
};
