// UI check (issue 15): reasoning a model streams is one quoted line with a "Show reasoning" button, folded with the steps above the answer.
import { SELECTORS, TEXT } from '../selectors.mjs';
import { sendChat } from '../chat.mjs';

export const reasoningCollapsed = {
  name: 'streamed reasoning is shown as one line with a Show reasoning button, not in full',
  async run({ page, shot }) {
    const reply = await sendChat(page, `${TEXT.participant} think it through: which slug rules apply?`, { until: /Three rules/ });
    const seen = reply.seen.join('\n').replace(/\s+/g, ' ');
    if (!/Reasoning \(\d+ words\): The user asks which slug rules apply\./.test(seen)) throw new Error(`the reply never showed the reasoning line: "${seen.slice(0, 300)}"`);
    if (seen.includes('transliteration matters')) throw new Error('the reply shows the whole reasoning instead of one line');
    if (/<details>|<summary>/.test(seen)) throw new Error('raw HTML shows in the reply');
    // VS Code folds what came before the answer into "Completed N steps", the button with it: wait for the button,
    // which lasts, and open the fold when it is hidden there (the picture shows it open too).
    const button = page.getByRole('button', { name: 'Show reasoning' }).first();
    const visible = (timeout) => button.waitFor({ timeout }).then(() => true).catch(() => false);
    const fold = page.locator(SELECTORS.chatResponse, { hasText: 'Three rules' }).last().getByText(/Completed \d+ steps?/).first();
    let shown = await visible(5_000);
    if (!shown && (await fold.isVisible().catch(() => false))) {
      await fold.click().catch(() => undefined);
      shown = await visible(15_000);
    }
    if (!shown) throw new Error('no "Show reasoning" button in the chat');
    await page.waitForTimeout(600);
    await shot('12-reasoning-line');
  },
};
