// Maps one pi-coding-agent message (user, assistant, toolResult, bashExecution) to the fields of our entries.
import type { AssistantEntry, StopReason, ToolCall, Usage } from '../session/entries';
import { isReportedCost } from '../session/entries';

type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

const num = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

export interface PartCounts {
  images: number;
  unknown: number;
}

/** Joins the text parts of a content array (a bare string is its own text); counts parts we cannot carry. */
export function joinText(content: unknown, counts: PartCounts, separator = '\n'): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const texts: string[] = [];
  for (const part of content as unknown[]) {
    if (!isObject(part)) continue;
    if (part.type === 'text' && typeof part.text === 'string') texts.push(part.text);
    else if (part.type === 'image') counts.images++;
    else if (part.type !== 'thinking' && part.type !== 'toolCall') counts.unknown++;
  }
  return texts.join(separator);
}

export function piUsage(value: unknown): Usage | undefined {
  if (!isObject(value)) return undefined;
  const cacheRead = num(value.cacheRead);
  const cacheWrite = num(value.cacheWrite);
  const usage: Usage = { promptTokens: num(value.input) + cacheRead + cacheWrite, completionTokens: num(value.output), cachedTokens: cacheRead, cacheWriteTokens: cacheWrite };
  // pi prices every call itself: `cost.total` in USD.
  const total = isObject(value.cost) ? value.cost.total : undefined;
  if (isReportedCost(total)) usage.cost = total;
  return usage;
}

const STOP_REASONS: Record<string, StopReason> = { stop: 'stop', toolUse: 'toolCalls', length: 'length', aborted: 'aborted', error: 'error' };

export function piStopReason(value: unknown): StopReason | undefined {
  return typeof value === 'string' ? STOP_REASONS[value] : undefined;
}

/** The fields of our assistant entry that a pi assistant message fills. */
export type PiAssistantFields = Pick<AssistantEntry, 'text' | 'toolCalls' | 'reasoning' | 'model' | 'usage' | 'stopReason' | 'error'>;

export function piAssistant(message: Json, counts: PartCounts): PiAssistantFields {
  const parts = Array.isArray(message.content) ? (message.content as unknown[]).filter(isObject) : [];
  const toolCalls: ToolCall[] = parts
    .filter((part) => part.type === 'toolCall' && typeof part.id === 'string')
    .map((part) => ({
      id: part.id as string,
      name: str(part.name) ?? 'unknown',
      // pi stores parsed arguments; the wire format wants the JSON text.
      arguments: typeof part.arguments === 'string' ? part.arguments : JSON.stringify(part.arguments ?? {}),
    }));
  const thinking = parts.filter((part) => part.type === 'thinking' && typeof part.thinking === 'string').map((part) => part.thinking as string);
  const fields: PiAssistantFields = { text: joinText(message.content, counts), toolCalls };
  if (thinking.length > 0) fields.reasoning = thinking.join('\n\n');
  const model = str(message.model);
  if (model) fields.model = model;
  const usage = piUsage(message.usage);
  if (usage) fields.usage = usage;
  const stopReason = piStopReason(message.stopReason);
  if (stopReason) fields.stopReason = stopReason;
  const error = str(message.errorMessage);
  if (error) fields.error = error;
  return fields;
}

/** A shell command the user ran themselves, as a clearly marked user message. */
export function piBashExecution(message: Json): string {
  const notes = [`exit code ${typeof message.exitCode === 'number' ? message.exitCode : 'unknown'}`];
  if (message.cancelled === true) notes.push('cancelled');
  if (message.truncated === true) notes.push('output truncated');
  return [`[Shell command run by the user, not by the assistant]`, `$ ${str(message.command) ?? ''}`, str(message.output) ?? '', `[${notes.join(', ')}]`].join('\n');
}

/** Text of the messages pi adds to the context itself (extension messages, branch summaries), sent as automatic user messages. */
export function piInjectedText(message: Json, counts: PartCounts): string | undefined {
  if (message.role === 'custom' || message.role === 'hookMessage') return joinText(message.content, counts);
  if (message.role === 'branchSummary') return `[Summary of a branch explored earlier in this session]\n${str(message.summary) ?? ''}`;
  if (message.role === 'compactionSummary') return `[Summary of the earlier conversation]\n${str(message.summary) ?? ''}`;
  return undefined;
}
