// UI check: clicking the budget status bar item opens the "Context & Compaction" webview with the budget bar and its numbers.
import { SELECTORS } from '../selectors.mjs';
import { openPanelFromStatusItem } from '../webview.mjs';
import { runCommand } from '../workbench.mjs';

export const budgetPanelOpens = {
  name: 'clicking the budget item opens the panel with the budget bar and numbers',
  async run({ page, shot }) {
    // Room for chat, panel and status bar side by side (the screenshots double as README pictures).
    await runCommand(page, 'View: Close Primary Side Bar');
    const frame = await openPanelFromStatusItem(page);
    await frame.locator(SELECTORS.budgetBar).waitFor({ timeout: 20_000 });
    const segments = await frame.locator(`${SELECTORS.budgetBar} .segment`).count();
    if (segments < 2) throw new Error(`the budget bar has ${segments} segment(s); expected used parts and free`);
    const headline = (await frame.locator(SELECTORS.budgetHeadline).innerText()).replace(/\s+/g, ' ');
    if (!/\d+%\s*[\d.]+k? of [\d.]+k? usable tokens/.test(headline)) throw new Error(`the headline shows no numbers: "${headline}"`);
    const numbers = await frame.locator(SELECTORS.budgetLegendNumber).allInnerTexts();
    if (numbers.length < 7 || !numbers.every((text) => /^[\d.]+[kM]?$/.test(text.trim()))) {
      throw new Error(`the legend numbers look wrong: ${JSON.stringify(numbers)}`);
    }
    await page.waitForTimeout(300); // let the bar's layout settle for the screenshot
    await shot('06-budget-panel');
  },
};
