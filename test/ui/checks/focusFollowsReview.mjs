// UI check (issue 41): by keyboard alone, focus follows each review action (Compact now → the summary, Regenerate →
// the new summary, Cancel → Compact now, Apply → the compaction it made) and a live region says what happened.
import { freshSession } from '../chat.mjs';
import { announced, focusSettlesOn, pressOn } from '../panelFocus.mjs';
import { panelFrame } from '../webview.mjs';
import { SELECTORS } from '../selectors.mjs';

const inSummary = (focused) => focused.id === 'summary-input';

export const focusFollowsReview = {
  name: 'focus-follows-review-actions',
  // Keyboard focus does not depend on the colour theme: one theme keeps the tier's time down.
  themes: ['dark'],
  async run({ page, shot }) {
    await freshSession(page, 'focus check');
    await (await panelFrame(page)).locator(SELECTORS.budgetBar).waitFor({ timeout: 20_000 });

    await pressOn(page, 'compact');
    await focusSettlesOn(page, 'the summary after Compact now', inSummary);
    await announced(page, /^Compaction review ready: [\d.]+k? → about [\d.]+k? tokens/);

    // The new proposal rebuilds the review (a new text box): focus left alone would fall to the page body.
    await pressOn(page, 'regenerate');
    await focusSettlesOn(page, 'the new summary after Regenerate', inSummary);
    await announced(page, /^New proposal: /);
    await shot('a11y-focus-regenerated');

    await pressOn(page, 'cancel');
    await focusSettlesOn(page, 'Compact now after Cancel', (focused) => focused.key === 'compact');
    await announced(page, /^Review closed; nothing changed/);

    await pressOn(page, 'compact');
    await focusSettlesOn(page, 'the summary after Compact now (again)', inSummary);
    await pressOn(page, 'apply');
    const result = await focusSettlesOn(page, 'the compaction Apply made', (focused) => focused.key?.startsWith('compaction:') === true);
    await announced(page, /^Applied: [\d.]+k? → [\d.]+k? tokens/);
    console.log(`    after Apply focus is on the history row "${result.text}"`);
    await shot('a11y-focus-applied');
  },
};
