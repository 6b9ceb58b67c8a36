// UI check (issue 41): Regenerate asks in the panel before it throws an edited summary away; the question is answered by
// keyboard (Escape keeps the edits and returns to Regenerate), and only "Discard edits and regenerate" asks the model.
import { freshSession } from '../chat.mjs';
import { recordedRequests } from '../endpointRecord.mjs';
import { announced, focusSettlesOn, pressOn } from '../panelFocus.mjs';
import { lasting } from '../steady.mjs';
import { panelFrame } from '../webview.mjs';
import { SELECTORS } from '../selectors.mjs';

const EDIT = 'Reviewer edit: keep the slugify test names.';

/** How many summaries the endpoint was asked for (requests without tools). */
async function summaryRequests(endpoint) {
  return (await recordedRequests(endpoint)).filter((request) => !(Array.isArray(request.body?.tools) && request.body.tools.length > 0)).length;
}

async function summaryText(page) {
  return (await panelFrame(page)).locator(SELECTORS.summaryInput).inputValue();
}

async function questionShown(page) {
  return (await (await panelFrame(page)).getByRole('alertdialog').count()) > 0;
}

export const regenerateAsks = {
  name: 'regenerate-asks-before-discarding-an-edit',
  // Keyboard focus does not depend on the colour theme: one theme keeps the tier's time down.
  themes: ['dark'],
  async run({ page, shot, endpoint }) {
    await freshSession(page, 'regenerate check');
    await (await panelFrame(page)).locator(SELECTORS.budgetBar).waitFor({ timeout: 20_000 });
    await pressOn(page, 'compact');
    await focusSettlesOn(page, 'the summary', (focused) => focused.id === 'summary-input');
    await page.keyboard.press('ControlOrMeta+End');
    await page.keyboard.type(`\n\n${EDIT}`, { delay: 5 });
    await lasting('the edit in the summary', () => summaryText(page), (value) => value.includes(EDIT), { holdMs: 500 });
    const asked = await summaryRequests(endpoint);

    // Regenerate with an edit: a question, focus on the choice that loses nothing, and no summary asked for.
    await pressOn(page, 'regenerate');
    await focusSettlesOn(page, '"Keep my edits"', (focused) => focused.key === 'regenerate-keep');
    const question = ((await (await panelFrame(page)).getByRole('alertdialog').first().innerText()) ?? '').replace(/\s+/g, ' ');
    if (!/your edits to it will be lost/.test(question) || !/Discard edits and regenerate/.test(question)) throw new Error(`the question reads "${question}"`);
    await page.waitForTimeout(400);
    await shot('a11y-regenerate-question');

    // Escape keeps the edits: the question goes, focus returns to Regenerate, the review stays open.
    await page.keyboard.press('Escape');
    await focusSettlesOn(page, 'Regenerate after Escape', (focused) => focused.key === 'regenerate');
    if (await questionShown(page)) throw new Error('Escape left the question open');
    if (!(await summaryText(page)).includes(EDIT)) throw new Error('Escape on the question lost the edit');
    if (!(await (await panelFrame(page)).locator(SELECTORS.reviewHeading).isVisible())) throw new Error('Escape on the question closed the review');
    if ((await summaryRequests(endpoint)) !== asked) throw new Error('a summary was asked for although the person kept the edits');

    // Asked again and answered "Discard edits and regenerate" (Shift+Tab from "Keep my edits", then Enter): a new summary replaces the edit.
    await pressOn(page, 'regenerate');
    await focusSettlesOn(page, '"Keep my edits" (again)', (focused) => focused.key === 'regenerate-keep');
    await page.keyboard.press('Shift+Tab');
    await focusSettlesOn(page, '"Discard edits and regenerate"', (focused) => focused.key === 'regenerate-discard');
    await page.keyboard.press('Enter');
    await focusSettlesOn(page, 'the new summary', (focused) => focused.id === 'summary-input');
    await announced(page, /^New proposal: /);
    const fresh = await summaryText(page);
    if (fresh.includes(EDIT)) throw new Error('the regenerated summary still holds the discarded edit');
    if ((await summaryRequests(endpoint)) <= asked) throw new Error('Discard edits and regenerate asked the endpoint for no summary');

    await pressOn(page, 'cancel');
    await focusSettlesOn(page, 'Compact now after Cancel', (focused) => focused.key === 'compact');
  },
};
