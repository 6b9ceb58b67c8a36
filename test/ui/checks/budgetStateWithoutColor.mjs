// UI check (issue 41): the budget's normal, warning and error states differ in the status item's icon and accessible
// name and in the panel's words, not only in colour; every part of the panel's bar is painted (High Contrast too).
import path from 'node:path';
import { SCREENSHOT_DIR } from '../../harness/browser.mjs';
import { freshSession } from '../chat.mjs';
import { lasting, retrying } from '../steady.mjs';
import { budgetStatusItem, panelFrame } from '../webview.mjs';
import { updateWorkspaceSettings } from '../workbench.mjs';
import { SELECTORS } from '../selectors.mjs';

const LEVELS = [
  { level: 'normal', warningPercent: 98, errorPercent: 99, icon: 'pie-chart', words: /^Context budget: \d+% used/, panel: undefined },
  { level: 'warning', warningPercent: 1, errorPercent: 99, icon: 'warning', words: /^Context budget, warning: filling up \(1% or more used\): \d+% used/, panel: /^Warning: filling up \(1% or more used\)$/ },
  { level: 'error', warningPercent: 1, errorPercent: 2, icon: 'error', words: /^Context budget, error: nearly full \(2% or more used\): \d+% used/, panel: /^Error: nearly full \(2% or more used\)$/ },
];

/** The status item's first icon, its accessible name and its text. */
async function itemLook(page) {
  return budgetStatusItem(page).evaluate((item) => {
    const named = item.matches('[aria-label]') ? item : item.querySelector('[aria-label]');
    const icon = [...(item.querySelector('.codicon')?.classList ?? [])].find((name) => name.startsWith('codicon-') && name !== 'codicon-modifier-spin');
    return { icon: icon?.replace('codicon-', ''), label: named?.getAttribute('aria-label') ?? '', text: item.innerText.trim() };
  });
}

/** Each part of the bar (and its legend swatch) with what it is painted with. */
async function barPaint(page) {
  return (await panelFrame(page)).evaluate(() =>
    [...document.querySelectorAll('.budget-bar .segment, .legend .swatch')].map((element) => {
      const style = getComputedStyle(element);
      const part = [...element.classList].find((name) => name.startsWith('segment-'))?.replace('segment-', '');
      return { part, where: element.classList.contains('swatch') ? 'legend' : 'bar', color: style.backgroundColor, image: style.backgroundImage };
    }),
  );
}

const painted = (paint) => paint.image !== 'none' || !/^rgba\(\d+, \d+, \d+, 0\)$|^transparent$/.test(paint.color);

export const budgetStateWithoutColor = {
  name: 'budget-state-without-color',
  themes: ['light', 'dark', 'hc-black', 'hc-light'],
  async run({ page, shot, dirs, theme }) {
    await freshSession(page, 'budget state check', 1);
    const looks = [];
    try {
      for (const expected of LEVELS) {
        await updateWorkspaceSettings(dirs, { 'compactionAgent.statusBar.warningPercent': expected.warningPercent, 'compactionAgent.statusBar.errorPercent': expected.errorPercent });
        const look = await lasting(`the budget item at the ${expected.level} level`, () => itemLook(page), (seen) => seen.icon === expected.icon && expected.words.test(seen.label), { timeoutMs: 30_000 });
        looks.push(look);
        const badge = await lasting(
          `the panel's words at the ${expected.level} level`,
          async () => (await (await panelFrame(page)).locator('.budget-level').allInnerTexts()).map((words) => words.trim()),
          (words) => (expected.panel ? words.length === 1 && expected.panel.test(words[0]) : words.length === 0),
          { timeoutMs: 30_000 },
        );
        console.log(`    ${expected.level}: item "${look.text}" (${look.icon}), named "${look.label.slice(0, 90)}…"; panel ${JSON.stringify(badge)}`);
        await retrying('scrolling the panel to its top', async () => (await panelFrame(page)).evaluate(() => window.scrollTo(0, 0)));
        await page.waitForTimeout(300);
        await shot(`a11y-status-${expected.level}`);
        await page.locator('.part.statusbar').first().screenshot({ path: path.join(SCREENSHOT_DIR, `ui-${theme}-a11y-statusbar-${expected.level}.png`) }).catch(() => undefined);
      }
    } finally {
      await updateWorkspaceSettings(dirs, { 'compactionAgent.statusBar.warningPercent': undefined, 'compactionAgent.statusBar.errorPercent': undefined });
    }
    if (new Set(looks.map((look) => look.icon)).size !== LEVELS.length) throw new Error(`the three levels share an icon: ${JSON.stringify(looks)}`);

    // Every part of the bar is painted, in the bar and in the legend, and no two used parts share one paint.
    await (await panelFrame(page)).locator(SELECTORS.budgetBar).waitFor({ timeout: 20_000 });
    const paints = await barPaint(page);
    const bare = paints.filter((paint) => paint.part !== 'free' && !painted(paint));
    if (bare.length > 0) throw new Error(`parts of the budget bar are not painted (they read as free space): ${JSON.stringify(bare)}`);
    const used = paints.filter((paint) => paint.where === 'legend' && !['free', 'reserved', 'instructions'].includes(paint.part));
    const colours = new Set(used.map((paint) => paint.color));
    if (colours.size !== used.length) throw new Error(`two parts of the budget bar share a colour: ${JSON.stringify(used)}`);
  },
};
