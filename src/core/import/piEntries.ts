// Converts one pi line to the fields of our entries: messages, shell commands as capped tool exchanges, compactions, changes.
import type { BlobRef } from '../session/entries';
import type { NewEntry } from '../session/newEntry';
import { blobRefOf } from '../storage/blobStore';
import { capToolOutput } from '../tools/outputCap';
import { isObject, joinText, piAssistant, piBashExecution, piInjectedText, type PartCounts } from './piMessages';
import type { PiTreeLinks } from './piTree';

type Json = Record<string, unknown>;

/** Entry fields with the id fixed up front (a capped output names its own entry, a call's result its call). */
export type PiEntryFields = NewEntry & { id: string };

export interface PiConvertState {
  counts: PartCounts;
  maxInlineChars: number;
  blobs: Array<{ ref: BlobRef; text: string }>;
  warnings: string[];
  newId: () => string;
  links: PiTreeLinks;
  /** Lines of kinds that never reach the model (extension state), counted for one warning. */
  extensionState: number;
  /** The name pi's latest session_info line gave the session. */
  title?: string;
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);

/** The agent loop's cap, by characters only: pi had no line limit, and a line cap would cut far more of its outputs. */
function cappedOutput(full: string, id: string, state: PiConvertState): { content: string; blob?: BlobRef } {
  const capped = capToolOutput(full, { maxChars: state.maxInlineChars, maxLines: Number.MAX_SAFE_INTEGER, entryId: id });
  if (capped.full === undefined) return { content: capped.content };
  const blob = blobRefOf(capped.full);
  state.blobs.push({ ref: blob, text: full });
  return { content: capped.content, blob };
}

/**
 * A command the user ran in pi's shell (`!cmd`): a bash call and its result, so the output is capped like any
 * tool output, readable back in full, and prunable. The result says the user ran it, not the assistant. Output
 * pi kept out of the context (`!!cmd`) is pruned right away.
 */
function bashExchange(message: Json, state: PiConvertState): PiEntryFields[] {
  const callId = state.newId();
  const resultId = state.newId();
  const exitCode = message.exitCode;
  const entries: PiEntryFields[] = [
    { id: callId, type: 'assistant', text: '', stopReason: 'toolCalls', toolCalls: [{ id: `user-bash-${resultId}`, name: 'bash', arguments: JSON.stringify({ command: str(message.command) ?? '' }) }] },
    {
      id: resultId,
      type: 'toolResult',
      toolCallId: `user-bash-${resultId}`,
      toolName: 'bash',
      isError: message.cancelled === true || (typeof exitCode === 'number' && exitCode !== 0),
      ...cappedOutput(piBashExecution(message), resultId, state),
    },
  ];
  if (message.excludeFromContext === true) entries.push({ id: state.newId(), type: 'prune', toolResultIds: [resultId], tokensFreed: 0, reason: 'manual' });
  return entries;
}

function convertMessage(message: Json, state: PiConvertState): PiEntryFields[] {
  const id = state.newId();
  if (message.role === 'user') return [{ id, type: 'user', text: joinText(message.content, state.counts) }];
  if (message.role === 'assistant') return [{ id, type: 'assistant', ...piAssistant(message, state.counts) }];
  if (message.role === 'bashExecution') return bashExchange(message, state);
  if (message.role === 'toolResult') {
    return [
      {
        id,
        type: 'toolResult',
        toolCallId: str(message.toolCallId) ?? '',
        toolName: str(message.toolName) ?? 'unknown',
        isError: message.isError === true,
        ...cappedOutput(joinText(message.content, state.counts), id, state),
      },
    ];
  }
  const injected = piInjectedText(message, state.counts);
  if (injected !== undefined) return [{ id, type: 'user', text: injected, synthetic: true }];
  state.warnings.push(`message role ${JSON.stringify(message.role)} is not supported, skipped`);
  return [];
}

/** Version 1 names the first kept line by index, later versions by id. */
function keptLineOf(line: Json, links: PiTreeLinks): number | undefined {
  if (typeof line.firstKeptEntryIndex === 'number') return line.firstKeptEntryIndex;
  return links.lineOfId(line.firstKeptEntryId);
}

function compaction(line: Json, index: number, parent: string | null, state: PiConvertState): PiEntryFields {
  const keptLine = keptLineOf(line, state.links);
  const firstKeptEntryId = keptLine === undefined ? null : state.links.firstKept(parent, keptLine);
  if (keptLine !== undefined && firstKeptEntryId === null) state.warnings.push(`line ${index + 1}: the compaction keeps line ${keptLine + 1}, which is not an imported entry before it; nothing before it is kept`);
  const details = isObject(line.details) ? line.details : {};
  return {
    id: state.newId(),
    type: 'compaction',
    summary: str(line.summary) ?? '',
    firstKeptEntryId,
    tokensBefore: typeof line.tokensBefore === 'number' ? line.tokensBefore : 0,
    tokensAfter: 0,
    files: { read: strings(details.readFiles), modified: strings(details.modifiedFiles) },
    edited: false,
    auto: false,
  };
}

/** The entries one pi line becomes (children of `parent`, in order), or [] for a line that carries nothing we keep. */
export function convertPiLine(line: Json, index: number, parent: string | null, state: PiConvertState): PiEntryFields[] {
  switch (line.type) {
    case 'message':
      return isObject(line.message) ? convertMessage(line.message, state) : [];
    case 'compaction':
      return [compaction(line, index, parent, state)];
    case 'model_change':
      if (typeof line.modelId !== 'string') break;
      return [{ id: state.newId(), type: 'modelChange', model: line.modelId, ...(typeof line.provider === 'string' ? { provider: line.provider } : {}) }];
    case 'thinking_level_change':
      if (typeof line.thinkingLevel !== 'string') break;
      return [{ id: state.newId(), type: 'settingsChange', changes: { thinkingLevel: line.thinkingLevel } }];
    case 'branch_summary':
      return [{ id: state.newId(), type: 'user', synthetic: true, text: `[Summary of a branch explored earlier in this session]\n${str(line.summary) ?? ''}` }];
    case 'custom_message':
      return [{ id: state.newId(), type: 'user', synthetic: true, text: joinText(line.content, state.counts) }];
    case 'label': {
      const target = state.links.entryFor(line.targetId);
      // A cleared label (no text) or one on an entry we did not import changes nothing here.
      if (typeof line.label !== 'string' || typeof target !== 'string') return [];
      return [{ id: state.newId(), type: 'label', targetId: target, label: line.label }];
    }
    case 'session_info':
      if (typeof line.name === 'string') state.title = line.name;
      return [];
    case 'custom':
      state.extensionState++;
      return [];
  }
  state.warnings.push(`entry type ${JSON.stringify(line.type)} is not supported, skipped`);
  return [];
}
