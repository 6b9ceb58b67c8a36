// UI check (issue 25): a delegated sub-task shows in the chat as progress and one closing line with "Open sub-task session".
import { SELECTORS, TEXT } from '../selectors.mjs';
import { sendChat } from '../chat.mjs';

export const delegatedSubtask = {
  name: 'a delegated sub-task shows its progress and an Open sub-task session button; only its answer comes back',
  async run({ page, shot }) {
    const reply = await sendChat(page, `${TEXT.participant} explore with a sub-task: where does slugify join words?`, { until: /words are joined with dashes/ });
    const seen = reply.seen.join('\n').replace(/\s+/g, ' ');
    if (!/Sub-task: Sub-task probe: find where slugify joins words[^]*answered after 2 model calls/.test(seen)) throw new Error(`the reply never showed the sub-task's closing line: "${seen.slice(0, 400)}"`);
    const buttons = await page.getByRole('button', { name: 'Open sub-task session' }).count();
    if (buttons === 0) throw new Error('no "Open sub-task session" button in the chat');
    const fold = page.locator(SELECTORS.chatResponse, { hasText: 'words are joined with dashes' }).last().getByText(/Completed \d+ steps?|Used \d+ references?/).first();
    if (await fold.isVisible().catch(() => false)) await fold.click().catch(() => undefined);
    await page.waitForTimeout(600);
    await shot('16-delegated-subtask');
  },
};
