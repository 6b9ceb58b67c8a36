// The text a user entry becomes for the model: what the person typed, then each attachment under its label.
import type { UserAttachment, UserEntry } from '../session/entries';

/** One attachment as the model reads it: delimited, with its path (and line range) in the opening tag. */
export function attachmentBlock(attachment: UserAttachment): string {
  const label = attachment.label.replace(/["\r\n]/g, (char) => (char === '"' ? "'" : ' '));
  return `<attachment label="${label}">\n${attachment.text}\n</attachment>`;
}

/** The user message's content: the typed text, then the attachments in the order they were attached. */
export function userContent(entry: Pick<UserEntry, 'text' | 'attachments'>): string {
  const attachments = entry.attachments ?? [];
  if (attachments.length === 0) return entry.text;
  const blocks = attachments.map(attachmentBlock);
  return [...(entry.text === '' ? [] : [entry.text]), ...blocks].join('\n\n');
}
