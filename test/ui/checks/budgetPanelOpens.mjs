// UI check: "Compaction Agent: Show Context Budget" opens the "Context & Compaction" webview with content.
import { SELECTORS, TEXT } from '../selectors.mjs';
import { runCommand } from '../workbench.mjs';

/** Webviews are iframe.webview > iframe#active-frame; find the frame by its content, not its (stale) name. */
async function findFrameWith(page, selector, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const frame of page.frames()) {
      if (frame === page.mainFrame()) continue;
      if (await frame.$(selector).catch(() => null)) return frame;
    }
    if (Date.now() > deadline) throw new Error(`no webview frame contains ${selector}`);
    await page.waitForTimeout(250);
  }
}

export const budgetPanelOpens = {
  name: 'Show Context Budget opens the Context & Compaction webview',
  async run({ page, shot }) {
    await runCommand(page, TEXT.showBudgetCommand);
    await page.locator(SELECTORS.editorTab, { hasText: TEXT.panelTitle }).first().waitFor({ timeout: 20_000 });
    await findFrameWith(page, SELECTORS.panelContent, 20_000);
    await page.waitForTimeout(500); // let the first render settle so the screenshot shows content
    await shot('04-budget-panel');
  },
};
