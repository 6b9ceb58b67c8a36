// Small actions on the code-server workbench shared by the UI checks (command palette, chat input, model, settings).
import fs from 'node:fs';
import path from 'node:path';
import { SELECTORS, TEXT } from './selectors.mjs';
import { readJsonFile } from './steady.mjs';

/** Runs a command by its palette title (F1, type, pick the exact row). */
export async function runCommand(page, title) {
  await page.keyboard.press('F1');
  await page.locator(SELECTORS.quickInput).waitFor({ state: 'visible', timeout: 10_000 });
  await page.keyboard.type(title, { delay: 5 });
  const row = page.locator(SELECTORS.quickInputRow, { hasText: title }).first();
  await row.waitFor({ timeout: 10_000 });
  await row.click();
}

/**
 * Runs one of our commands, trying again for up to 40 s: nothing starts the extension with the window, and the palette
 * lists an extension's commands once the workbench has read its manifest. Running it starts the extension.
 */
export async function runCommandOnceListed(page, title) {
  const deadline = Date.now() + 40_000;
  for (;;) {
    try {
      await runCommand(page, title);
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await page.keyboard.press('Escape');
      await page.waitForTimeout(1_000);
    }
  }
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

/** The Settings UI opens as a modal editor in this VS Code: Escape closes it; else its title bar's Close button. */
export async function closeSettings(page) {
  const editor = page.locator('.settings-editor').first();
  await page.keyboard.press('Escape');
  if (await editor.waitFor({ state: 'hidden', timeout: 3_000 }).then(() => true, () => false)) return;
  for (const close of await page.getByRole('button', { name: /^Close/ }).all()) {
    const box = await close.boundingBox();
    const settingsBox = await editor.boundingBox();
    if (box && settingsBox && box.y < settingsBox.y && box.x > settingsBox.x + settingsBox.width / 2) {
      await close.click();
      break;
    }
  }
  await editor.waitFor({ state: 'hidden', timeout: 5_000 });
}

/** Opens the Settings UI on one setting (searched by its full id) and returns its item. */
export async function openSetting(page, id, title) {
  await runCommand(page, TEXT.openSettingsUiCommand);
  const search = page.locator(SELECTORS.settingsSearch).first();
  await search.waitFor({ timeout: 15_000 });
  await search.click();
  await page.keyboard.type(id, { delay: 10 });
  const item = page.locator(SELECTORS.settingItem, { hasText: title }).first();
  await item.waitFor({ timeout: 15_000 });
  return item;
}

/**
 * Sets settings a workspace may set in the workspace's .vscode/settings.json (the workbench watches the folder and
 * applies them live; a change to the profile's settings.json from outside is only read at the next load). `undefined`
 * values remove a key; a file left empty is removed with its folder.
 */
export async function updateWorkspaceSettings(dirs, changes) {
  const folder = path.join(dirs.workspace, '.vscode');
  const file = path.join(folder, 'settings.json');
  const settings = fs.existsSync(file) ? await readJsonFile(file) : {};
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) delete settings[key];
    else settings[key] = value;
  }
  if (Object.keys(settings).length > 0) {
    fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(file, JSON.stringify(settings, null, 2));
  } else {
    fs.rmSync(file, { force: true });
    if (fs.existsSync(folder) && fs.readdirSync(folder).length === 0) fs.rmdirSync(folder);
  }
}

/** After a failed setup the chat may still have the "(set up an endpoint)" entry picked: pick the endpoint's model. */
export async function pickDemoModel(page) {
  await chatInput(page);
  const inputPart = page.locator(SELECTORS.chatInputPart).first();
  if (await inputPart.getByRole('button', { name: new RegExp(TEXT.demoModel) }).first().waitFor({ timeout: 15_000 }).then(() => true, () => false)) return;
  await inputPart.getByRole('button', { name: /Compaction Agent|set up an endpoint/ }).first().click();
  await page.locator('.monaco-list-row, .action-widget .action-item', { hasText: TEXT.demoModel }).first().click({ timeout: 20_000 });
}
