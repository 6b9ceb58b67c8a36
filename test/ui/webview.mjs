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

/** The panel's frame, found again on every call (a webview that was hidden reloads, and its old frame is gone). */
export async function panelFrame(page) {
  return (await findFrameWith(page, SELECTORS.panelContent, 2_000).catch(() => undefined)) ?? (await openPanelFromStatusItem(page));
}

/** "68% 7.4k/10.9k" (status item) or "68% 7.4k of 10.9k usable tokens" (panel headline) as numbers; undefined without a percentage. */
export function budgetFigures(text) {
  const match = /(\d+)%\s*([\d.]+k?)\s*(?:\/|of)\s*([\d.]+k?)/.exec(text ?? '');
  if (!match) return undefined;
  const tokens = (value) => (value.endsWith('k') ? Math.round(Number(value.slice(0, -1)) * 1000) : Number(value));
  return { percent: Number(match[1]), used: tokens(match[2]), usable: tokens(match[3]) };
}

/** What the panel shows now: its session title, budget headline, Window fact (and all facts), banner text and reserve. */
export async function panelView(page) {
  const frame = await panelFrame(page);
  const title = (await frame.locator('#session-title').innerText()).trim();
  const headline = (await frame.locator(SELECTORS.budgetHeadline).first().innerText().catch(() => '')).replace(/\s+/g, ' ').trim();
  const facts = await frame.locator('.facts').first().innerText().catch(() => '');
  const window = /Window\s+([^\n]+)/.exec(facts)?.[1]?.trim() ?? '';
  const banner = (await frame.locator('.notice').allInnerTexts()).map((text) => text.trim()).filter(Boolean).join(' | ');
  const reserved = (await frame.locator('.legend li', { hasText: 'Reserved for output' }).locator('.num').first().innerText().catch(() => '')).trim();
  // The turns the Drop section lists: what differs between two branches even when their totals happen to match.
  const turns = (await frame.locator('section[aria-labelledby="drops-heading"] .row-main').allInnerTexts()).map((text) => text.replace(/\s+/g, ' ').trim()).join(' | ');
  return { title, headline, figures: budgetFigures(headline), window, facts: facts.replace(/\s+/g, ' '), banner, reserved, turns };
}
