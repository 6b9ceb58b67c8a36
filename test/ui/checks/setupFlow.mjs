// UI check (issue 15): from nothing configured to a first answer: @agent offers the setup, the guided setup lists the server's models.
import path from 'node:path';
import { SELECTORS, TEXT } from '../selectors.mjs';
import { sendChat } from '../chat.mjs';
import { readJsonFile } from '../steady.mjs';
import { budgetStatusText } from '../webview.mjs';

async function quickInputReady(page, title) {
  await page.locator(SELECTORS.quickInput, { hasText: title }).first().waitFor({ state: 'visible', timeout: 15_000 });
}

/** The session's first request, made right after the setup: the oldest turn, so the first one a compaction summarizes. */
export const SETUP_TURN = 'hello again, now that you are set up';

export const setupFlow = {
  name: 'with no endpoint, @agent offers the setup; setup lists the scripted server\'s models; the first request is answered',
  async run({ page, shot, dirs, endpoint }) {
    const settingsFile = path.join(dirs.userData, 'User/settings.json');
    if ('compactionAgent.endpoint.baseUrl' in (await readJsonFile(settingsFile))) throw new Error('the run started with an endpoint configured');
    const offer = await sendChat(page, `${TEXT.participant} hello`, { until: /No endpoint is configured/ });
    // The button may render a moment after the text: wait for it, not for the text to already hold it.
    const setUp = page.locator(SELECTORS.chatResponse).last().getByRole('button', { name: 'Set Up Endpoint' });
    if (!(await setUp.waitFor({ timeout: 20_000 }).then(() => true, () => false))) throw new Error(`the reply offers no setup button: "${offer.text.slice(0, 200)}"`);
    await shot('02a-setup-offered');
    await setUp.click();

    await quickInputReady(page, '(1/4)');
    await page.keyboard.type('Other OpenAI', { delay: 10 });
    await page.locator(SELECTORS.quickInputRow, { hasText: 'Other OpenAI-compatible server' }).first().click();
    await quickInputReady(page, '(2/4)');
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type(endpoint.url, { delay: 5 });
    await page.keyboard.press('Enter');
    await quickInputReady(page, '(3/4)');
    await page.keyboard.press('Enter');
    await quickInputReady(page, '(4/4)');
    const model = page.locator(SELECTORS.quickInputRow, { hasText: TEXT.demoModel }).first();
    await model.waitFor({ timeout: 20_000 });
    const placeholder = await page.locator(`${SELECTORS.quickInput} input`).first().getAttribute('placeholder');
    if (!/Connected: \d+ model/.test(placeholder ?? '')) throw new Error(`the model step does not say it connected: "${placeholder}"`);
    await page.waitForTimeout(300);
    await shot('02b-setup-models');
    await model.click();
    await page.locator('.notifications-toasts', { hasText: 'Compaction Agent is set up' }).first().waitFor({ timeout: 15_000 });

    const written = await readJsonFile(settingsFile);
    if (written['compactionAgent.endpoint.baseUrl'] !== endpoint.url || written['compactionAgent.endpoint.model'] !== TEXT.demoModel) {
      throw new Error(`the setup wrote ${JSON.stringify({ baseUrl: written['compactionAgent.endpoint.baseUrl'], model: written['compactionAgent.endpoint.model'] })}`);
    }
    // The session's first request: the status bar shows an estimate ("~") until the endpoint reports usage.
    const statusTexts = [];
    const sample = async () => {
      const text = await budgetStatusText(page);
      // Before the session's first figures the item says "no session yet": only budget figures count here.
      if (text && /%/.test(text) && statusTexts.at(-1) !== text) statusTexts.push(text);
    };
    const answer = await sendChat(page, `${TEXT.participant} ${SETUP_TURN}`, { until: /Done with request/, onPoll: sample });
    await sample();
    if (statusTexts.length === 0) throw new Error('the budget status item never appeared during the first request');
    if (!statusTexts[0].includes('~')) throw new Error(`the first budget text should be an estimate ("~"): ${JSON.stringify(statusTexts)}`);
    if (!answer.text.includes(TEXT.demoLabel)) throw new Error(`the first answer did not come from the scripted endpoint: "${answer.text.slice(0, 200)}"`);
    await shot('02c-setup-first-answer');

  },
};
