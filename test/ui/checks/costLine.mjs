// UI check (issue 15): a reply whose usage reports OpenRouter's `cost` shows that cost and the cached share in the panel.
import { SELECTORS, TEXT } from '../selectors.mjs';
import { sendChat } from '../chat.mjs';
import { findFrameWith } from '../webview.mjs';
import { runCommand } from '../workbench.mjs';
import { retrying } from '../steady.mjs';

const REQUEST = 'what did that cost, roughly?';

export const costLine = {
  name: 'a reported cost appears in the panel: per request and for the session, with the cached share',
  async run({ page, shot }) {
    await sendChat(page, `${TEXT.participant} ${REQUEST}`, { until: /reports its cost/ });
    await runCommand(page, TEXT.showBudgetCommand);
    const frame = await findFrameWith(page, SELECTORS.usageHeading, 30_000);
    const section = frame.locator(SELECTORS.usageSection);
    const row = section.locator('tr', { hasText: REQUEST }).first();
    await row.waitFor({ timeout: 20_000 });
    const rowText = (await row.innerText()).replace(/\s+/g, ' ');
    if (!rowText.includes('$0.012')) throw new Error(`the request's row shows no cost: "${rowText}"`);
    if (!/\b75%|\b7[45]%/.test(rowText)) throw new Error(`the request's row shows no cached share: "${rowText}"`);
    const totals = (await section.locator('dl').first().innerText()).replace(/\s+/g, ' ');
    if (!/Cost \$0\.012 \(\d+ calls? without a reported cost\)/.test(totals)) throw new Error(`the session's cost line reads "${totals}"`);
    await retrying('scrolling to the usage section', async () => {
      await row.scrollIntoViewIfNeeded();
      await section.scrollIntoViewIfNeeded();
    });
    await page.waitForTimeout(300);
    await shot('14-cost-line');
  },
};
