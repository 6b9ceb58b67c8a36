// Caps a large tool output for the context: head and tail inline, the full text in a content-addressed blob.
import type { BlobRef } from './entries';
import { blobRefOf } from '../storage/blobStore';

export interface CappedOutput {
  /** What goes in the entry's `content` (and so to the model). */
  content: string;
  /** Set when the output was capped: where the full text lives. */
  blob?: BlobRef;
}

/** Moves a cut point off the middle of a surrogate pair so the view never holds half a character. */
function safeCut(text: string, at: number): number {
  const code = text.charCodeAt(at - 1);
  return code >= 0xd800 && code <= 0xdbff ? at - 1 : at;
}

/** The note between head and tail tells the model how much is missing and how to read it. */
export function cappedNote(entryId: string, omitted: number, total: number): string {
  return `[... ${omitted} of ${total} chars omitted. The full output is stored: call read_stored_output with entryId "${entryId}" (optionally a char or line range) to read it.]`;
}

/** Returns the text unchanged when it fits, else a head+tail view and the blob ref of the full text (the caller stores it). */
export function capToolOutput(text: string, maxChars: number, entryId: string): CappedOutput {
  if (text.length <= maxChars) return { content: text };
  const headEnd = safeCut(text, Math.floor(maxChars * 0.6));
  const tailStart = safeCut(text, text.length - Math.floor(maxChars * 0.4));
  const omitted = tailStart - headEnd;
  return {
    content: `${text.slice(0, headEnd)}\n\n${cappedNote(entryId, omitted, text.length)}\n\n${text.slice(tailStart)}`,
    blob: blobRefOf(text),
  };
}
