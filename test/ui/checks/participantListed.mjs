// UI check: typing "@agent" in the real chat input offers the participant.
import { SELECTORS, TEXT } from '../selectors.mjs';
import { typeInChat } from '../workbench.mjs';

export const participantListed = {
  name: 'typing @agent in the chat input lists the participant',
  async run({ page, shot }) {
    // Completions are computed when typing; before the extension has activated the list lacks @agent, so retype.
    const row = page.locator(SELECTORS.suggestRow, { hasText: TEXT.participant }).first();
    const deadline = Date.now() + 40_000;
    for (;;) {
      await typeInChat(page, '@ag');
      if (await row.waitFor({ timeout: 5_000 }).then(() => true, () => false)) break;
      if (Date.now() > deadline) throw new Error(`"${TEXT.participant}" was not offered after typing "@ag"`);
      await page.keyboard.press('Escape');
    }
    await shot('02-chat-participant');
    await page.keyboard.press('Escape');
  },
};
