// UI check (issues 15, 24): with confirmations on, an edit opens VS Code's diff editor and asks with the chat's inline Allow / Skip; Skip leaves the file, Allow changes it.
import fs from 'node:fs';
import path from 'node:path';
import { SELECTORS, TEXT } from '../selectors.mjs';
import { lastResponse } from '../chat.mjs';
import { readJsonFile } from '../steady.mjs';
import { closeSettings, openSetting, typeInChat } from '../workbench.mjs';

const FILE = 'src/slugify.mjs';
const OLD = ".replace(/^-+/, '');";
const NEW = ".replace(/^-+|-+$/g, '');";

/** Ticks or clears "Require Confirmation" in the Settings UI, as a person would, and waits for settings.json to say so. */
async function setConfirmation(page, dirs, on) {
  const item = await openSetting(page, 'compactionAgent.tools.requireConfirmation', 'Require Confirmation');
  const checkbox = item.locator('.setting-value-checkbox').first();
  const checked = (await checkbox.getAttribute('aria-checked')) === 'true';
  if (checked !== on) await checkbox.click();
  const file = path.join(dirs.userData, 'User/settings.json');
  // The default is on: the Settings UI may write true or remove the key.
  const written = async () => (await readJsonFile(file))['compactionAgent.tools.requireConfirmation'];
  for (let tries = 0; tries < 40 && (on ? (await written()) === false : (await written()) !== false); tries++) await page.waitForTimeout(250);
  await closeSettings(page);
}

async function askForTheFix(page, text) {
  const before = (await lastResponse(page)).index;
  await typeInChat(page, text);
  if (await page.locator(SELECTORS.suggestWidgetVisible).isVisible().catch(() => false)) await page.keyboard.press('Escape');
  await page.keyboard.press('Enter');
  return before;
}

async function waitForReply(page, before, pattern) {
  for (let tries = 0; tries < 240; tries++) {
    const newest = await lastResponse(page);
    if (newest.index > before && pattern.test(newest.text)) return newest.text;
    await page.waitForTimeout(250);
  }
  throw new Error(`no reply matched ${pattern}; last: "${(await lastResponse(page)).text.slice(0, 300)}"`);
}

/** The diff tab and the chat's inline confirmation are both up; returns the confirmation's Allow and Skip buttons. */
async function waitForDiff(page) {
  await page.locator(SELECTORS.diffEditor).first().waitFor({ timeout: 30_000 });
  // VS Code docks the pending confirmation above the chat input: its title is our prepareInvocation's.
  const confirmation = page.locator(`${SELECTORS.chatConfirmation}:visible`, { hasText: 'Edit src/slugify.mjs?' }).last();
  await confirmation.waitFor({ timeout: 30_000 });
  if (await page.locator(SELECTORS.quickInputRow, { hasText: 'Accept' }).first().isVisible().catch(() => false)) {
    throw new Error('the old Accept / Reject quick pick opened beside the inline confirmation');
  }
  return {
    // The primary button is "Allow" or "Allow in this Session", as VS Code decides for an extension's tool.
    accept: confirmation.locator(SELECTORS.button, { hasText: /^\s*Allow/ }).first(),
    reject: confirmation.locator(SELECTORS.button, { hasText: /^\s*Skip\s*$/ }).first(),
  };
}

export const diffConfirmation = {
  name: 'an edit opens the diff editor and asks inline in the chat: Skip keeps the file, Allow applies the change',
  async run({ page, shot, dirs }) {
    const target = path.join(dirs.workspace, FILE);
    const original = fs.readFileSync(target, 'utf8');
    if (!original.includes(OLD)) throw new Error(`${FILE} in the sample workspace no longer holds ${OLD}`);
    await setConfirmation(page, dirs, true);
    try {
      const first = await askForTheFix(page, `${TEXT.participant} fix the trailing dash in slugify`);
      const rejecting = await waitForDiff(page);
      await rejecting.reject.click();
      const declined = await waitForReply(page, first, /you declined/);
      if (fs.readFileSync(target, 'utf8') !== original) throw new Error(`${FILE} changed although the edit was skipped`);
      if (!/declined/.test(declined)) throw new Error(`the reply does not say the edit was declined: "${declined.slice(0, 200)}"`);
      for (let tries = 0; tries < 40 && (await page.locator(SELECTORS.diffEditor).first().isVisible().catch(() => false)); tries++) await page.waitForTimeout(250);
      if (await page.locator(SELECTORS.diffEditor).first().isVisible().catch(() => false)) throw new Error('the diff editor stayed open after Skip');

      const second = await askForTheFix(page, `${TEXT.participant} fix the trailing dash in slugify, please`);
      const accepting = await waitForDiff(page);
      const sides = await page.locator(SELECTORS.diffEditor).first().innerText();
      if (!sides.includes('-+$/g')) throw new Error('the diff editor does not show the proposed change');
      await page.waitForTimeout(500); // the diff and the pick settle for the screenshot
      await shot('13-diff-confirmation');
      await accepting.accept.click();
      await waitForReply(page, second, /now trims trailing dashes/);
      const after = fs.readFileSync(target, 'utf8');
      if (!after.includes(NEW) || after.includes(OLD)) throw new Error(`${FILE} does not hold the accepted change`);
    } finally {
      await setConfirmation(page, dirs, false);
    }
  },
};
