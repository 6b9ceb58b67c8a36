// UI check: a value changed in the Settings UI (statusBar.warningPercent) changes the budget item's colour at once, both ways.
import { SELECTORS, TEXT } from '../selectors.mjs';
import { closeSettings, runCommand } from '../workbench.mjs';
import { budgetStatusItem } from '../webview.mjs';
import { lasting, retrying } from '../steady.mjs';

const SETTING_QUERY = 'compactionAgent.statusBar.warningPercent';

async function itemLook(page) {
  const item = budgetStatusItem(page);
  return item.evaluate((element) => ({
    warning: element.classList.contains('warning-kind'),
    background: getComputedStyle(element).backgroundColor,
  }));
}

async function waitForLook(page, warning) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    // The item may be re-rendered between finding and reading it: that read counts as "not yet".
    const look = await itemLook(page).catch(() => undefined);
    if (look && look.warning === warning) return look;
    if (Date.now() > deadline) throw new Error(`the budget item did not ${warning ? 'turn to' : 'leave'} the warning colour: ${JSON.stringify(look)}`);
    await page.waitForTimeout(200);
  }
}

/**
 * Replaces the number in the Settings UI's input for the searched setting (typed, as a person would), typing again
 * until the input lastingly holds it: under load the Settings UI can re-render and drop keys typed into it.
 */
async function setNumber(page, value) {
  const item = () => page.locator(SELECTORS.settingItem, { hasText: 'Warning Percent' }).first();
  await item().waitFor({ timeout: 15_000 });
  for (let tries = 1; ; tries++) {
    await retrying('typing the number', async () => {
      await item().locator('input').first().click();
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.type(String(value), { delay: 20 });
    });
    const held = await lasting('the typed number', () => item().locator('input').first().inputValue(), (text) => text === String(value), { timeoutMs: 5_000, holdMs: 1_000 }).then(
      () => true,
      () => false,
    );
    if (held) return;
    if (tries >= 3) throw new Error(`the Warning Percent input does not keep ${value}`);
  }
}

export const settingsUiChangesBehaviour = {
  name: 'changing statusBar.warningPercent in the Settings UI recolours the budget item',
  async run({ page, shot }) {
    const before = await waitForLook(page, false);
    await runCommand(page, TEXT.openSettingsUiCommand);
    const search = page.locator(SELECTORS.settingsSearch).first();
    await search.waitFor({ timeout: 15_000 });
    await search.click();
    await page.keyboard.type(SETTING_QUERY, { delay: 5 });
    await setNumber(page, 1);
    const warned = await waitForLook(page, true);
    if (warned.background === before.background) throw new Error(`the warning class came but the background stayed ${before.background}`);
    await shot('13-settings-ui-warning');
    await setNumber(page, 70);
    const restored = await waitForLook(page, false);
    if (restored.background !== before.background) throw new Error(`the background did not return: ${before.background} → ${restored.background}`);
    await closeSettings(page);
  },
};
