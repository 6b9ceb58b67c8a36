// UI check: the "Context budget" status bar item shows, its text led by the codicon-rendered budget.
import { SELECTORS } from '../selectors.mjs';

export const budgetStatusItem = {
  name: 'the context budget status bar item shows',
  async run({ page, shot }) {
    const item = page.locator(SELECTORS.budgetStatusItem).first();
    await item.waitFor({ state: 'visible', timeout: 30_000 });
    const icons = await item.locator(SELECTORS.codicon).count();
    if (icons === 0) throw new Error('the status item has no codicon (expected "$(icon) budget")');
    const text = (await item.innerText()).trim();
    if (!/\d/.test(text)) throw new Error(`the status item shows no budget figure: "${text}"`);
    await shot('03-status-item');
  },
};
