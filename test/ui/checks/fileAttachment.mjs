// UI check (issue 15): a file attached through the chat input's Add Context picker (#file) reaches the endpoint inside the user's message, with its label.
import fs from 'node:fs';
import path from 'node:path';
import { SELECTORS, TEXT } from '../selectors.mjs';
import { lastResponse } from '../chat.mjs';
import { agentTurnRequests, clearRecordedRequests, keepRequest, recordedRequests } from '../endpointRecord.mjs';
import { typeInChat } from '../workbench.mjs';

const FILE = 'package.json';
const QUESTION = 'which scripts does this attached file define?';

/** Attaches FILE through "Add Context..." (the paperclip / + button of the chat input): its quick pick lists workspace files. */
async function attachThroughPicker(page) {
  const input = page.locator(SELECTORS.chatInputPart).first();
  const button = input.getByRole('button', { name: /Add Context|Attach/i }).first();
  if (await button.isVisible().catch(() => false)) await button.click();
  else await page.keyboard.press('ControlOrMeta+/');
  await page.locator(SELECTORS.quickInput).waitFor({ state: 'visible', timeout: 10_000 });
  await page.keyboard.type(FILE, { delay: 20 });
  const row = page.locator(SELECTORS.quickInputRow, { hasText: FILE }).first();
  await row.waitFor({ timeout: 15_000 });
  await row.click();
  await page.locator(SELECTORS.quickInput).waitFor({ state: 'hidden', timeout: 10_000 }).catch(() => undefined);
}

export const fileAttachment = {
  name: 'a file attached in the chat input (Add Context, #file) reaches the endpoint with its contents and label',
  async run({ page, shot, dirs, endpoint }) {
    const contents = fs.readFileSync(path.join(dirs.workspace, FILE), 'utf8');
    await clearRecordedRequests(endpoint);
    await typeInChat(page, `${TEXT.participant} ${QUESTION}`);
    await attachThroughPicker(page);
    const chip = page.locator(SELECTORS.chatInputPart).first().getByText(FILE).first();
    await chip.waitFor({ timeout: 10_000 });
    await page.locator(SELECTORS.chatInput).first().click();
    await page.keyboard.press('End');
    await page.waitForTimeout(300);
    await shot('15a-file-attached');
    const before = (await lastResponse(page)).index;
    await page.keyboard.press('Enter');
    for (let tries = 0; ; tries++) {
      const newest = await lastResponse(page);
      if (newest.index > before && /Done with request/.test(newest.text)) break;
      if (tries > 240) throw new Error(`no reply to the request with the attachment; last: "${newest.text.slice(0, 200)}"`);
      await page.waitForTimeout(250);
    }
    const turns = agentTurnRequests(await recordedRequests(endpoint));
    const messages = turns[0]?.body?.messages ?? [];
    const user = [...messages].reverse().find((message) => message.role === 'user');
    const text = typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content ?? '');
    if (!text.includes(QUESTION)) throw new Error(`the request lacks the question (${keepRequest('file-attachment', turns[0] ?? {})})`);
    if (!text.includes(`<attachment label="${FILE}">`)) throw new Error(`the user message carries no attachment labelled ${FILE} (${keepRequest('file-attachment', turns[0] ?? {})})`);
    const firstLine = contents.split('\n').find((line) => line.includes('"name"')) ?? contents.slice(0, 40);
    if (!text.includes(firstLine.trim())) throw new Error(`the attachment does not carry the file's contents (${keepRequest('file-attachment', turns[0] ?? {})})`);
    await page.waitForTimeout(300);
    await shot('15b-file-answered');
  },
};
