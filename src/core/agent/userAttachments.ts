// Turns what the user attached to a message (files, selections, text) into labelled attachments, capped like tool outputs.
import type { Thresholds } from '../budget/thresholds';
import type { UserAttachment } from '../session/entries';
import { capText, type Omission } from '../tools/outputCap';

/** One attachment as the chat handed it over, before capping. */
export interface AttachmentSource {
  /** Workspace-relative path of a file, or the attachment's name when it is not one. */
  name: string;
  text: string;
  /** True when `name` is a path read_file can open (a file inside the workspace). */
  readable: boolean;
  /** 1-based lines of a selection; absent for a whole file. */
  lines?: { start: number; end: number };
}

/** All attachments of one message together take at most this many tool outputs' worth of characters and lines. */
export const ATTACHMENTS_SHARE = 2;
/** However many are attached, each keeps at least this much (a useful head and tail). */
const MIN_CHARS = 1000;
const MIN_LINES = 40;

/** Per-attachment caps: one tool output's cap each, shrinking when many share the message. */
export function attachmentLimits(thresholds: Pick<Thresholds, 'toolOutputChars' | 'toolOutputLines'>, count: number): { maxChars: number; maxLines: number } {
  const share = Math.max(1, count);
  return {
    maxChars: Math.max(MIN_CHARS, Math.min(thresholds.toolOutputChars, Math.floor((thresholds.toolOutputChars * ATTACHMENTS_SHARE) / share))),
    maxLines: Math.max(MIN_LINES, Math.min(thresholds.toolOutputLines, Math.floor((thresholds.toolOutputLines * ATTACHMENTS_SHARE) / share))),
  };
}

export function attachmentLabel(source: Pick<AttachmentSource, 'name' | 'lines'>): string {
  if (!source.lines) return source.name;
  const { start, end } = source.lines;
  return start === end ? `${source.name}, line ${start}` : `${source.name}, lines ${start}-${end}`;
}

/** Says what the cap left out and, for a workspace file, the read_file call that shows it. */
function omissionNote(source: AttachmentSource, omission: Omission): string {
  const offset = (source.lines?.start ?? 1) - 1;
  const path = JSON.stringify(source.name);
  if (omission.kind === 'chars') {
    const how = source.readable ? `; read the file with read_file {"path":${path}}` : '';
    return `[... ${omission.length} chars of the attachment omitted${how} ...]`;
  }
  const start = omission.startLine + offset;
  const end = omission.endLine + offset;
  const how = source.readable ? `; read them with read_file {"path":${path},"startLine":${start},"endLine":${end}}` : '';
  return `[... ${omission.lines} lines / ${omission.chars} chars omitted (lines ${start}-${end})${how} ...]`;
}

export interface PreparedAttachments {
  attachments: UserAttachment[];
  /** Labels of the attachments that were capped to their head and tail. */
  shortened: string[];
}

/** The attachments a user entry stores: labelled, trailing newline dropped, each capped to its share. */
export function prepareAttachments(sources: readonly AttachmentSource[], thresholds: Pick<Thresholds, 'toolOutputChars' | 'toolOutputLines'>): PreparedAttachments {
  const limits = attachmentLimits(thresholds, sources.length);
  const prepared: PreparedAttachments = { attachments: [], shortened: [] };
  for (const source of sources) {
    const label = attachmentLabel(source);
    const capped = capText(source.text.replace(/\r?\n$/, ''), limits, (omission) => omissionNote(source, omission));
    prepared.attachments.push({ label, text: capped.content });
    if (capped.full !== undefined) prepared.shortened.push(label);
  }
  return prepared;
}
