// Reading and moving keyboard focus inside the panel's webview, and what its live region announced.
import { panelFrame } from './webview.mjs';
import { lasting, retrying } from './steady.mjs';

/** What has focus in the panel: { key, id, tag, text } (key: the control's data-key), or undefined when the panel is not focused. */
export async function focusedInPanel(page) {
  return (await panelFrame(page)).evaluate(() => {
    const active = document.activeElement;
    if (!active || active === document.body) return { key: undefined, id: undefined, tag: 'body', text: '' };
    return { key: active.getAttribute('data-key') ?? undefined, id: active.id || undefined, tag: active.tagName.toLowerCase(), text: (active.textContent ?? '').trim().slice(0, 80) };
  });
}

/** Waits until focus lastingly sits on the element `accept(focused)` describes. */
export function focusSettlesOn(page, what, accept, { timeoutMs = 60_000 } = {}) {
  return lasting(`focus on ${what}`, () => focusedInPanel(page), accept, { timeoutMs, holdMs: 800 });
}

/** Waits until the panel's live region says something matching `pattern`. */
export function announced(page, pattern, { timeoutMs = 60_000 } = {}) {
  return lasting(`the announcement ${pattern}`, async () => (await (await panelFrame(page)).locator('#announcer').textContent()) ?? '', (said) => pattern.test(said), { timeoutMs, holdMs: 300 });
}

/** Focuses the control with `key` (as Tab would) and presses `key` on the keyboard: no mouse involved. */
export async function pressOn(page, dataKey, keyName = 'Enter') {
  await retrying(`pressing ${keyName} on ${dataKey}`, async () => {
    const control = (await panelFrame(page)).locator(`[data-key="${dataKey}"]`).first();
    await control.focus();
    await page.keyboard.press(keyName);
  });
}
