// Fakes for the agent loop: a scripted ModelStream, a recording summarizer, a temp session, and log invariants.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import type { AgentEvent } from '../../src/core/agent/agentEvents';
import type { SummarizeFn, SummarizeRequest } from '../../src/core/compaction/compaction';
import type { ChatRequest, ModelError, ModelStream, StreamEvent } from '../../src/core/llm/modelStream';
import type { SessionEntry, StopReason, ToolCall, Usage } from '../../src/core/session/entries';
import { SessionLog } from '../../src/core/session/sessionLog';
import { CountCache } from '../../src/core/tokens/countCache';
import { TokenCounter } from '../../src/core/tokens/tokenCounter';

/** One scripted model reply. `hang` streams the text (and partial calls) and then waits for the abort. */
export interface ScriptedReply {
  text?: string;
  /** `id` as the server sends it (repeated or empty, as some do); by default a unique one. */
  toolCalls?: Array<({ name: string; args: unknown } | { name: string; rawArguments: string }) & { id?: string }>;
  usage?: Usage;
  stopReason?: StopReason;
  error?: ModelError;
  hang?: boolean;
}

export type ScriptStep = ScriptedReply | ((request: ChatRequest, index: number) => ScriptedReply);

export interface ScriptedModel extends ModelStream {
  requests: ChatRequest[];
}

function toCalls(reply: ScriptedReply, index: number): ToolCall[] {
  return (reply.toolCalls ?? []).map((call, i) => ({
    id: call.id ?? `call_${index}_${i}`,
    name: call.name,
    arguments: 'rawArguments' in call ? call.rawArguments : JSON.stringify(call.args),
  }));
}

function waitForAbort(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** Replays the script, one step per stream() call; past its end every call fails with a clear error. */
export function scriptedModel(script: readonly ScriptStep[]): ScriptedModel {
  const requests: ChatRequest[] = [];
  return {
    requests,
    async *stream(request, signal): AsyncGenerator<StreamEvent> {
      const index = requests.length;
      requests.push(structuredClone(request));
      const step = script[index];
      if (step === undefined) {
        yield { type: 'error', error: { kind: 'badRequest', message: `script has no step ${index}`, retryable: false }, partial: { text: '', toolCalls: [] } };
        return;
      }
      const reply = typeof step === 'function' ? step(request, index) : step;
      const text = reply.text ?? '';
      const calls = toCalls(reply, index);
      if (reply.error) {
        yield { type: 'error', error: reply.error, partial: { text: '', toolCalls: [] } };
        return;
      }
      for (const piece of text.match(/[\s\S]{1,20}/g) ?? []) yield { type: 'textDelta', text: piece };
      for (const [i, call] of calls.entries()) yield { type: 'toolCallStart', index: i, id: call.id, name: call.name };
      if (reply.hang) {
        await waitForAbort(signal);
        yield { type: 'error', error: { kind: 'aborted', message: 'aborted', retryable: false }, partial: { text, toolCalls: calls } };
        return;
      }
      const invalid = calls.flatMap((call, position) => (isJson(call.arguments) ? [] : [position]));
      const stopReason = reply.stopReason ?? (calls.length > 0 ? 'toolCalls' : 'stop');
      yield { type: 'done', text, toolCalls: calls, invalidArguments: invalid, stopReason, ...(reply.usage ? { usage: reply.usage } : {}) };
    },
  };
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

export const OVERFLOW: ModelError = { kind: 'overflow', message: "This model's maximum context length is 8192 tokens.", retryable: false };

export interface RecordingSummarizer {
  summarize: SummarizeFn;
  calls: SummarizeRequest[];
}

export function recordingSummarizer(options: { needsReview?: boolean } = {}): RecordingSummarizer {
  const calls: SummarizeRequest[] = [];
  return {
    calls,
    summarize: (request) => {
      calls.push(request);
      const ids = [...request.entries, ...request.turnPrefixEntries].map((entry) => entry.id);
      return Promise.resolve({
        summary: `## Goal\nThe task so far.\n## Done\nSummarized ${ids.length} entries: ${ids.join(', ')}`,
        ...(request.turnPrefixEntries.length > 0 ? { turnPrefixSummary: 'The turn started with a file survey.' } : {}),
        files: { read: ['big.txt'], modified: [] },
        problems: options.needsReview ? ['missing section "Next steps"'] : [],
        needsReview: options.needsReview ?? false,
      });
    },
  };
}

export interface TempSession {
  dir: string;
  log: SessionLog;
  counter: TokenCounter;
  cache: CountCache;
  cleanup(): Promise<void>;
}

export async function tempSession(): Promise<TempSession> {
  const dir = realpathSync(mkdtempSync(nodePath.join(tmpdir(), 'agent-loop-')));
  const log = await SessionLog.create(nodePath.join(dir, 'session.jsonl'), {}, { lock: false });
  const counter = await TokenCounter.create('gpt-4o');
  return {
    dir,
    log,
    counter,
    cache: new CountCache(),
    cleanup: async () => {
      await log.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function collect(events: AsyncIterable<AgentEvent>, onEvent?: (event: AgentEvent) => void): Promise<AgentEvent[]> {
  const seen: AgentEvent[] = [];
  for await (const event of events) {
    seen.push(event);
    onEvent?.(event);
  }
  return seen;
}

/** Problems with tool-call pairing on a path: calls without exactly one later result, results without a call. */
export function orphanProblems(path: readonly SessionEntry[]): string[] {
  const problems: string[] = [];
  const open = new Map<string, number>();
  for (const entry of path) {
    if (entry.type === 'assistant') for (const call of entry.toolCalls) open.set(call.id, 0);
    if (entry.type === 'toolResult') {
      const seen = open.get(entry.toolCallId);
      if (seen === undefined) problems.push(`result ${entry.id} has no call ${entry.toolCallId}`);
      else open.set(entry.toolCallId, seen + 1);
    }
  }
  for (const [id, count] of open) if (count !== 1) problems.push(`call ${id} has ${count} results`);
  return problems;
}

/** The same check on a request's wire messages. */
export function wireOrphans(request: ChatRequest): string[] {
  const problems: string[] = [];
  const open = new Set<string>();
  for (const message of request.messages) {
    if (message.role === 'assistant') {
      if (open.size > 0) problems.push(`calls ${[...open].join(',')} unanswered before the next assistant message`);
      open.clear();
      for (const call of message.tool_calls ?? []) open.add(call.id);
    } else if (message.role === 'tool') {
      if (!open.delete(message.tool_call_id)) problems.push(`tool message ${message.tool_call_id} without a call`);
    } else if (open.size > 0) {
      problems.push(`calls ${[...open].join(',')} unanswered before a ${message.role} message`);
      open.clear();
    }
  }
  return problems;
}
