// UI check (issue 25): a delegated sub-task shows in the chat as progress and one closing line with "Open sub-task session".
import { SELECTORS, TEXT } from '../selectors.mjs';
import { sendChat } from '../chat.mjs';
import { lasting } from '../steady.mjs';

export const delegatedSubtask = {
  name: 'a delegated sub-task shows its progress and an Open sub-task session button; only its answer comes back',
  async run({ page, shot }) {
    const reply = await sendChat(page, `${TEXT.participant} explore with a sub-task: where does slugify join words?`, { until: /words are joined with dashes/ });
    const seen = reply.seen.join('\n').replace(/\s+/g, ' ');
    if (!/Sub-task: Sub-task probe: find where slugify joins words[^]*answered after 2 model calls/.test(seen)) throw new Error(`the reply never showed the sub-task's closing line: "${seen.slice(0, 400)}"`);
    // Once the answer is in, the chat folds what came before it (the button too) into "Completed N steps": open the
    // fold when it is closed, and wait for the button to be there (found again on every try).
    const response = () => page.locator(SELECTORS.chatResponse, { hasText: 'words are joined with dashes' }).last();
    await lasting(
      'the Open sub-task session button',
      async () => {
        const button = response().getByRole('button', { name: 'Open sub-task session' }).first();
        if (await button.isVisible().catch(() => false)) return true;
        const fold = response().getByText(/Completed \d+ steps?|Used \d+ references?/).first();
        if (await fold.isVisible().catch(() => false)) await fold.click().catch(() => undefined);
        return false;
      },
      (shown) => shown,
      { timeoutMs: 30_000, holdMs: 500 },
    ).catch(() => {
      throw new Error('no "Open sub-task session" button in the chat');
    });
    await page.waitForTimeout(600);
    await shot('16-delegated-subtask');
  },
};
