// Runs the real agent loop + OpenAiChatClient + model summarizer against the scripted endpoint, then checks the log.
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import type { AgentEvent, ReviewCompaction } from '../../src/core/agent/agentEvents';
import { runAgent } from '../../src/core/agent/agentLoop';
import { modelSummarizer } from '../../src/core/compaction/summarizer';
import { OpenAiChatClient } from '../../src/core/llm/openaiChatClient';
import { parseLog } from '../../src/core/session/logParser';
import { SessionLog } from '../../src/core/session/sessionLog';
import { defaultSettings, type Settings } from '../../src/core/settings/settings';
import { CountCache } from '../../src/core/tokens/countCache';
import { TokenCounter } from '../../src/core/tokens/tokenCounter';
import { ToolRegistry } from '../../src/core/tools/toolRegistry';
import { orphanProblems } from '../support/agentFakes';
import { recordingAccess, tempWorkspace } from '../support/agentWorkspace';
import { startScriptedEndpoint, type RecordedRequest } from '../support/scriptedEndpoint';
import { reply, type ScriptStep } from '../support/scriptedSteps';
import { messageOf } from './familyReport';

export const SCENARIO_WINDOW = 8192;

export interface ScenarioSpec {
  /** Steps for requests that carry tools (the agent's calls), in order. */
  agentSteps: ScriptStep[];
  /** Steps for tool-less requests (the summarizer's calls, one per transcript chunk), in order; default: valid summaries. */
  summarySteps?: ScriptStep[];
  /** Turns of history appended before the run (each about 450 tokens). */
  historyTurns?: number;
  maxRetries?: number;
  timeoutMs?: number;
  idleTimeoutMs?: number;
  abortWhen?: (event: AgentEvent) => boolean;
  review?: ReviewCompaction;
  userText?: string;
  apiKey?: string;
  /** Key the endpoint demands (defaults to apiKey); a different one produces real 401s. */
  endpointKey?: string;
  /** Settings changes on top of the small-window defaults. */
  settings?: (settings: Settings) => void;
}

export interface ScenarioRun {
  events: AgentEvent[];
  agentRequests: number;
  summaryRequests: number;
  requests: RecordedRequest[];
  /** Delays the client asked to sleep before retries (not actually waited). */
  sleeps: number[];
  before: Buffer;
  after: Buffer;
  /** Files the session wrote (log, quarantine, blobs, lock...) are all below this folder. */
  dir: string;
  /** Consistency problems: orphaned tool pairs, invalid lines, no final done event, an escaped exception. */
  problems: string[];
}

export const VALID_SUMMARY = [
  '## Goal',
  'Port the selector to the theme system so every selector looks the same.',
  '## Constraints and preferences',
  '(none)',
  '## Progress',
  '### Done',
  '- Read theme.md, theme.ts and oauth-selector.ts.',
  '### In progress',
  '- Rewriting user-message-selector.ts.',
  '### Blocked',
  '(none)',
  '## Key decisions',
  '- Use the Container pattern of oauth-selector.ts.',
  '## Next steps',
  '- Finish user-message-selector.ts and run the tests.',
  '## Critical context',
  '- The theme tokens are listed in docs/theme.md.',
].join('\n');

function smallWindowSettings(spec: ScenarioSpec): Settings {
  const settings = defaultSettings();
  settings.compaction.reserveTokens = 1024;
  settings.compaction.keepRecentTokens = 1000;
  settings.context.maxOutputTokens = 512;
  settings.pruning.enabled = false;
  settings.tools.requireConfirmation = false;
  spec.settings?.(settings);
  return settings;
}

async function seedHistory(log: SessionLog, turns: number): Promise<void> {
  for (let turn = 0; turn < turns; turn++) {
    await log.append({
      type: 'user',
      text: `Question ${turn}: ${'please look at the selector code and explain the theme tokens '.repeat(12)}`,
    });
    await log.append({
      type: 'assistant',
      text: `Answer ${turn}: ${'the selector uses theme colors for borders and text '.repeat(16)}`,
      toolCalls: [],
      stopReason: 'stop',
    });
  }
}

function hasTools(body: unknown): boolean {
  const tools = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).tools : undefined;
  return Array.isArray(tools) && tools.length > 0;
}

function checkLog(file: string, log: SessionLog, events: AgentEvent[]): string[] {
  const problems = orphanProblems(log.path()).map((problem) => `orphaned tool pair: ${problem}`);
  const parsed = parseLog(readFileSync(file), file);
  if (parsed.torn || parsed.corrupt.length > 0) problems.push('the session file has invalid lines');
  if (parsed.entries.length !== log.tree.entries.length)
    problems.push(`file has ${parsed.entries.length} entries, memory ${log.tree.entries.length}`);
  if (events.at(-1)?.type !== 'done') problems.push('the event stream did not end with done');
  return problems;
}

async function drive(
  spec: ScenarioSpec,
  log: SessionLog,
  client: OpenAiChatClient,
  counter: TokenCounter,
  root: string,
): Promise<AgentEvent[]> {
  const controller = new AbortController();
  const events: AgentEvent[] = [];
  const agent = runAgent({
    log,
    model: client,
    modelId: 'demo-model',
    registry: new ToolRegistry(),
    workspace: recordingAccess(root).access,
    settings: smallWindowSettings(spec),
    contextWindow: SCENARIO_WINDOW,
    counter,
    cache: new CountCache(),
    summarize: modelSummarizer({ model: client, counter, summaryWindow: SCENARIO_WINDOW, path: () => log.path() }),
    ...(spec.review ? { review: spec.review } : {}),
    signal: controller.signal,
    ...(spec.userText !== '' ? { userText: spec.userText ?? 'Port the user message selector.' } : {}),
    maxSteps: 8,
  });
  for await (const event of agent) {
    events.push(event);
    if (spec.abortWhen?.(event)) controller.abort();
  }
  return events;
}

let sharedCounter: Promise<TokenCounter> | undefined;

/** One scenario end to end; never throws (an escaped exception is reported as a problem). */
export async function runScenario(spec: ScenarioSpec): Promise<ScenarioRun> {
  const dir = realpathSync(mkdtempSync(nodePath.join(tmpdir(), 'faults-agent-')));
  const workspace = tempWorkspace();
  const queues = {
    agent: [...spec.agentSteps],
    summary: [...(spec.summarySteps ?? Array.from({ length: 6 }, () => reply(VALID_SUMMARY)))],
  };
  const counts = { agent: 0, summary: 0 };
  const endpoint = await startScriptedEndpoint(
    (request) => {
      const kind = hasTools(request.body) ? 'agent' : 'summary';
      counts[kind]++;
      return (
        queues[kind].shift() ?? {
          kind: 'http',
          status: 500,
          body: { error: { message: `no scripted ${kind} step left` } },
        }
      );
    },
    { apiKey: spec.endpointKey ?? spec.apiKey ?? 'sk-fault-suite' },
  );
  const sleeps: number[] = [];
  const client = new OpenAiChatClient({
    baseUrl: endpoint.url,
    apiKey: spec.apiKey ?? 'sk-fault-suite',
    model: 'demo-model',
    timeoutMs: spec.timeoutMs ?? 15_000,
    idleTimeoutMs: spec.idleTimeoutMs ?? 5_000,
    maxRetries: spec.maxRetries ?? 2,
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
  });
  const file = nodePath.join(dir, 'session.jsonl');
  const log = await SessionLog.create(file, { id: 'agent-faults' }, { lock: { heartbeatMs: 0 } });
  const problems: string[] = [];
  let events: AgentEvent[] = [];
  let before = Buffer.alloc(0);
  let after = Buffer.alloc(0);
  try {
    await seedHistory(log, spec.historyTurns ?? 0);
    before = readFileSync(file);
    sharedCounter ??= TokenCounter.create('gpt-4o');
    events = await drive(spec, log, client, await sharedCounter, workspace.root);
    problems.push(...checkLog(file, log, events));
    after = readFileSync(file);
  } catch (error) {
    problems.push(`exception escaped the agent loop: ${messageOf(error)}`);
    before = Buffer.alloc(0);
    after = Buffer.alloc(0);
  } finally {
    await log.close();
    await endpoint.close();
    workspace.cleanup();
  }
  return {
    events,
    agentRequests: counts.agent,
    summaryRequests: counts.summary,
    requests: endpoint.requests,
    sleeps,
    before,
    after,
    dir,
    problems,
  };
}

/** Removes a scenario's session folder once its files have been checked. */
export function discardRun(run: ScenarioRun): void {
  rmSync(run.dir, { recursive: true, force: true });
}
