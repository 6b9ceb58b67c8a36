// The text a user entry becomes for the model: what the person typed, a line per image, then each attachment under its label.
import type { UserAttachment, UserEntry } from '../session/entries';
import type { UserMessage } from './chatMessage';
import { imageMarker } from './userImages';

/** One attachment as the model reads it: delimited, with its path (and line range) in the opening tag. */
export function attachmentBlock(attachment: UserAttachment): string {
  const label = attachment.label.replace(/["\r\n]/g, (char) => (char === '"' ? "'" : ' '));
  return `<attachment label="${label}">\n${attachment.text}\n</attachment>`;
}

/** The user message's content: the typed text, a marker per image, then the attachments in the order they were attached. */
export function userContent(entry: Pick<UserEntry, 'text' | 'attachments' | 'images'>): string {
  const attachments = entry.attachments ?? [];
  const images = entry.images ?? [];
  if (attachments.length === 0 && images.length === 0) return entry.text;
  const markers = images.length > 0 ? [images.map(imageMarker).join('\n')] : [];
  return [...(entry.text === '' ? [] : [entry.text]), ...markers, ...attachments.map(attachmentBlock)].join('\n\n');
}

/** The chat message a user entry becomes: its content, and its images for the models that take them. */
export function userMessage(entry: Pick<UserEntry, 'text' | 'attachments' | 'images'>): UserMessage {
  const images = entry.images ?? [];
  return {
    role: 'user',
    content: userContent(entry),
    ...(images.length > 0 ? { images: images.map(({ blob, mimeType, width, height }) => ({ blob, mimeType, width, height })) } : {}),
  };
}
