// The "Context & Compaction" webview: opening it from the status bar item and finding its frame by content.
import { SELECTORS, TEXT } from './selectors.mjs';

/** Webviews are iframe.webview > iframe#active-frame; find the frame by its content, not its (stale) name. */
export async function findFrameWith(page, selector, timeoutMs = 20_000) {
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

export function budgetStatusItem(page) {
  return page.locator(SELECTORS.budgetStatusItem).first();
}

/** Text of the status bar item (the codicon renders as an empty span), or undefined while it is hidden. */
export async function budgetStatusText(page) {
  const item = budgetStatusItem(page);
  if (!(await item.isVisible().catch(() => false))) return undefined;
  return (await item.innerText().catch(() => '')).trim();
}

/** Clicks the status bar item and resolves to the panel's frame once the budget section has rendered. */
export async function openPanelFromStatusItem(page) {
  await budgetStatusItem(page).click();
  await page.locator(SELECTORS.editorTab, { hasText: TEXT.panelTitle }).first().waitFor({ timeout: 20_000 });
  return findFrameWith(page, SELECTORS.panelContent);
}
