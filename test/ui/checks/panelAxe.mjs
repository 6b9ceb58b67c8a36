// UI check (issue 41): axe-core inside the panel finds no serious or critical violation in any state the panel has
// (budget, pending review, after Apply with the history and the "unknown" badge), in each of the four theme kinds.
import { SELECTORS } from '../selectors.mjs';
import { freshSession, sendChat } from '../chat.mjs';
import { axeViolations, describeViolations } from '../axe.mjs';
import { retrying } from '../steady.mjs';
import { findFrameWith, panelFrame } from '../webview.mjs';

/** Runs axe in the panel as it is now; returns a line per finding (none when clean). */
async function audit(page, state) {
  const violations = await retrying(`axe in the panel (${state})`, async () => axeViolations(await panelFrame(page)));
  if (violations.length === 0) return [];
  console.log(`    axe, ${state}:\n${describeViolations(violations).replace(/^/gm, '      ')}`);
  return violations.map((violation) => `${state}: ${violation.id} (${violation.nodes.length} node${violation.nodes.length === 1 ? '' : 's'})`);
}

export const panelAxe = {
  name: 'panel-axe-no-serious-violations',
  themes: ['light', 'dark', 'hc-black', 'hc-light'],
  async run({ page, shot }) {
    await freshSession(page, 'axe check');
    const findings = [];
    const frame = await panelFrame(page);
    await frame.locator(SELECTORS.budgetBar).waitFor({ timeout: 20_000 });
    await page.waitForTimeout(300);
    await shot('a11y-01-panel-budget');
    findings.push(...(await audit(page, 'budget')));

    await sendChat(page, '@agent /compact', { until: /Context & Compaction|Nothing to compact/, timeoutMs: 120_000 });
    const review = await findFrameWith(page, SELECTORS.reviewHeading, 60_000);
    await review.locator(SELECTORS.summaryInput).waitFor({ timeout: 20_000 });
    await retrying('scrolling to the review', async () => (await panelFrame(page)).locator(SELECTORS.reviewHeading).evaluate((heading) => heading.scrollIntoView({ block: 'start' })));
    await page.waitForTimeout(600);
    await shot('a11y-02-panel-review');
    findings.push(...(await audit(page, 'pending review')));

    await retrying('clicking Apply', async () => (await panelFrame(page)).getByRole('button', { name: 'Apply', exact: true }).click());
    await retrying('the review closing', async () => (await panelFrame(page)).locator(SELECTORS.reviewHeading).waitFor({ state: 'detached', timeout: 20_000 }));
    await retrying('the history row', async () => (await panelFrame(page)).locator(SELECTORS.historyRow).first().waitFor({ timeout: 20_000 }));
    await retrying('scrolling to the top', async () => (await panelFrame(page)).evaluate(() => window.scrollTo(0, 0)));
    await page.waitForTimeout(400);
    await shot('a11y-03-panel-applied');
    findings.push(...(await audit(page, 'after Apply')));
    if (findings.length > 0) throw new Error(`axe found ${findings.length} serious or critical violation(s): ${findings.join('; ')}`);
  },
};
