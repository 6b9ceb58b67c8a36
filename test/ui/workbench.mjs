// Small actions on the code-server workbench shared by the UI checks (command palette, chat input).
import { SELECTORS, TEXT } from './selectors.mjs';

/** Runs a command by its palette title (F1, type, pick the exact row). */
export async function runCommand(page, title) {
  await page.keyboard.press('F1');
  await page.locator(SELECTORS.quickInput).waitFor({ state: 'visible', timeout: 10_000 });
  await page.keyboard.type(title, { delay: 5 });
  const row = page.locator(SELECTORS.quickInputRow, { hasText: title }).first();
  await row.waitFor({ timeout: 10_000 });
  await row.click();
}

/** The chat input editor, opening the Chat view first when it is not showing. */
export async function chatInput(page) {
  const input = page.locator(SELECTORS.chatInput).first();
  if (!(await input.isVisible().catch(() => false))) await runCommand(page, TEXT.openChatCommand);
  await input.waitFor({ state: 'visible', timeout: 20_000 });
  return input;
}

/** Replaces whatever is in the chat input with `text` (typed, so completions react as for a user). */
export async function typeInChat(page, text) {
  const input = await chatInput(page);
  // Click the editor container: the inner edit context is covered by an overlay.
  await input.click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.type(text, { delay: 20 });
}
