// Runs one assistant message's tool calls in order and appends a result for every call, cancelled or not.
import { recordingWorkspace } from '../checkpoints/changeRecorder';
import type { CommandSnapshots } from '../checkpoints/commandSnapshots';
import { newEntryId } from '../session/newEntry';
import type { FileChange, ToolCall, ToolResultEntry } from '../session/entries';
import type { Settings } from '../settings/settings';
import { capToolOutput } from '../tools/outputCap';
import type { ToolRegistry } from '../tools/toolRegistry';
import type { ToolLimits, ToolOutput } from '../tools/toolTypes';
import type { WorkspaceAccess } from '../tools/workspaceAccess';
import type { AgentEvent } from './agentEvents';
import type { AgentLog } from './agentLog';
import { sessionAccess } from './agentLog';

/** The result every unfinished call gets when the user cancels, so no tool call is left without a result. */
export const CANCELLED_BY_USER = '[cancelled by the user]';

export interface ToolRunDeps {
  log: AgentLog;
  registry: ToolRegistry;
  workspace: WorkspaceAccess;
  limits: ToolLimits;
  settings: Settings['tools'];
  signal: AbortSignal;
  /** Positions (in the reply's calls) of the calls whose arguments the endpoint reported as invalid JSON. */
  invalidArguments: ReadonlySet<number>;
  /** Snapshots the workspace around each command (no program started), so Restore Checkpoint can undo it. */
  commandSnapshots?: CommandSnapshots;
}

function freshId(log: AgentLog): string {
  let id = newEntryId();
  while (log.tree.has(id)) id = newEntryId();
  return id;
}

/**
 * Appends a tool result; long outputs keep head and tail inline and the full text goes to a blob. The
 * entry id is chosen first so the inline note can name it for read_stored_output.
 */
export async function appendToolResult(log: AgentLog, call: ToolCall, output: ToolOutput, limits: Settings['tools'], fileChanges: readonly FileChange[] = [], checkpointGap?: string): Promise<ToolResultEntry> {
  const id = freshId(log);
  const capped = capToolOutput(output.text, { maxChars: limits.outputMaxChars, maxLines: limits.outputMaxLines, entryId: id });
  const blob = capped.full === undefined ? undefined : await log.blobs.put(capped.full);
  const entry = await log.append({
    type: 'toolResult',
    id,
    toolCallId: call.id,
    toolName: call.name,
    isError: output.isError,
    content: capped.content,
    ...(blob ? { blob } : {}),
    ...(fileChanges.length > 0 ? { fileChanges: [...fileChanges] } : {}),
    ...(checkpointGap ? { checkpointGap } : {}),
    ...(output.subagent ? { subagent: output.subagent } : {}),
  });
  return entry as ToolResultEntry;
}

export async function appendCancelledResults(log: AgentLog, calls: readonly ToolCall[], limits: Settings['tools']): Promise<void> {
  for (const call of calls) await appendToolResult(log, call, { text: CANCELLED_BY_USER, isError: true }, limits);
}

/**
 * Runs the call at `index` of the reply; every file it writes is snapshotted before and after into `changes` (the
 * turn's file checkpoint). The call is known by its place in the reply: ids may repeat or be empty.
 */
async function executeCall(calls: readonly ToolCall[], index: number, deps: ToolRunDeps, changes: FileChange[], gaps: string[]): Promise<ToolOutput> {
  const call = calls[index] as ToolCall;
  if (deps.invalidArguments.has(index)) {
    return { text: `${call.name}: the arguments were not valid JSON (${call.arguments.slice(0, 200)}). Send a JSON object.`, isError: true };
  }
  const notes: string[] = [];
  const output = await deps.registry.execute(call.name, call.arguments, {
    signal: deps.signal,
    workspace: recordingWorkspace(deps.workspace, deps.log.blobs, changes, {
      maxBytes: deps.settings.snapshotMaxBytes ?? Number.POSITIVE_INFINITY,
      notes,
      ...(deps.commandSnapshots ? { commands: deps.commandSnapshots, gap: (reason: string) => gaps.push(reason) } : {}),
    }),
    session: sessionAccess(deps.log),
    limits: deps.limits,
    toolCallId: call.id,
    reply: { calls, index },
  });
  return notes.length === 0 ? output : { ...output, text: `${output.text}\n\n(${notes.join(' ')})` };
}

/**
 * The output cap is shared by the calls of one reply: results of one step can only be kept or cut together
 * (never a call without its result), so at a small window four parallel reads must fit where one would.
 */
function sharedCap(limits: Settings['tools'], calls: number): Settings['tools'] {
  if (calls <= 1) return limits;
  return { ...limits, outputMaxChars: Math.max(MIN_SHARED_CHARS, Math.floor(limits.outputMaxChars / calls)), outputMaxLines: Math.max(MIN_SHARED_LINES, Math.floor(limits.outputMaxLines / calls)) };
}

const MIN_SHARED_CHARS = 1000;
const MIN_SHARED_LINES = 20;

/** Returns true when the user cancelled (every call still has exactly one result appended). */
export async function* runToolCalls(calls: readonly ToolCall[], options: ToolRunDeps): AsyncGenerator<AgentEvent, boolean> {
  const deps = { ...options, settings: sharedCap(options.settings, calls.length) };
  const pending = [...calls];
  try {
    while (pending.length > 0 && !deps.signal.aborted) {
      const call = pending[0] as ToolCall;
      yield { type: 'toolStart', call };
      const changes: FileChange[] = [];
      const gaps: string[] = [];
      const output = await executeCall(calls, calls.length - pending.length, deps, changes, gaps);
      const entry = await appendToolResult(deps.log, call, output, deps.settings, changes, gaps.length > 0 ? [...new Set(gaps)].join('; ') : undefined);
      pending.shift();
      yield { type: 'toolEnd', call, entry, ...(output.files ? { files: output.files } : {}) };
    }
  } finally {
    // Also runs when the consumer stops iterating early: the log must not keep calls without results.
    await appendCancelledResults(deps.log, pending.splice(0), deps.settings);
  }
  return deps.signal.aborted;
}
