// Fault family 5: endpoint faults and cancellations driven through the real agent loop, client and summarizer.
import type { AgentEvent } from '../../src/core/agent/agentEvents';
import { faults, reply, toolCalls } from '../support/scriptedSteps';
import { discardRun, runScenario, VALID_SUMMARY, type ScenarioRun, type ScenarioSpec } from './agentScenario';
import { runFamily, type FamilyResult } from './familyReport';

interface Expect {
  /** Most agent + summary requests allowed (beyond it: a retry, compaction or continue loop). */
  maxRequests: number;
  outcome: 'finished' | 'error' | 'aborted';
  /** Retry events required before the outcome. */
  minRetries?: number;
  /** The error event's message must match. */
  message?: RegExp;
  /** Compaction entries the run must append (default 0). */
  compactions?: number;
  check?: (run: ScenarioRun) => string | undefined;
}

interface Kind {
  name: string;
  spec: ScenarioSpec;
  expect: Expect;
}

const isError = (event: AgentEvent): event is Extract<AgentEvent, { type: 'error' }> => event.type === 'error';
const HISTORY = 4;
const BIG_HISTORY = 22;

const KINDS: Kind[] = [
  {
    name: '429 with Retry-After',
    spec: { agentSteps: [faults.rateLimited(7), reply('ok')] },
    expect: {
      maxRequests: 2,
      outcome: 'finished',
      minRetries: 1,
      check: (run) =>
        run.sleeps.some((ms) => ms >= 7000) ? undefined : `Retry-After ignored: slept ${run.sleeps.join(',')}`,
    },
  },
  {
    name: '500',
    spec: { agentSteps: [faults.serverError(500), reply('ok')] },
    expect: { maxRequests: 2, outcome: 'finished', minRetries: 1 },
  },
  {
    name: '502 every time',
    spec: {
      agentSteps: [faults.serverError(502), faults.serverError(502), faults.serverError(502), faults.serverError(502)],
      maxRetries: 2,
    },
    expect: { maxRequests: 3, outcome: 'error', minRetries: 2, message: /\S{3}/ },
  },
  {
    name: '503',
    spec: { agentSteps: [faults.serverError(503), faults.serverError(503), reply('ok')] },
    expect: { maxRequests: 3, outcome: 'finished', minRetries: 2 },
  },
  {
    name: 'connection reset mid-stream',
    spec: { agentSteps: [faults.reset('I will now read the fi'), reply('unused')] },
    expect: { maxRequests: 1, outcome: 'error', message: /./ },
  },
  {
    name: 'malformed SSE',
    spec: { agentSteps: [faults.malformed('Looking at'), reply('unused')], maxRetries: 1 },
    expect: { maxRequests: 2, outcome: 'error', message: /./ },
  },
  // With content but no finish reason the client accepts the reply (some local servers omit it); without content it is an error.
  {
    name: 'stream without finish reason',
    spec: { agentSteps: [faults.noFinish(), faults.noFinish(), reply('unused')], maxRetries: 1 },
    expect: { maxRequests: 2, outcome: 'error', message: /finish reason/ },
  },
  {
    name: 'hang past the timeout',
    spec: {
      agentSteps: [faults.hang(), faults.hang(), faults.hang()],
      maxRetries: 1,
      timeoutMs: 1500,
      idleTimeoutMs: 700,
    },
    expect: { maxRequests: 2, outcome: 'error', message: /time|respond|silent/i },
  },
  {
    name: 'tool call with invalid JSON arguments',
    spec: {
      agentSteps: [
        toolCalls([{ name: 'read_file', arguments: '{"path": "src/a.ts"' }]),
        reply('Sorry, retrying is not needed.'),
      ],
    },
    expect: {
      maxRequests: 2,
      outcome: 'finished',
      check: (run) =>
        run.after.toString('utf8').includes('"isError":true')
          ? undefined
          : 'invalid arguments not reported to the model',
    },
  },
  {
    name: 'unknown tool name',
    spec: {
      agentSteps: [toolCalls([{ name: 'delete_everything', arguments: {} }]), reply('I will use the real tools.')],
    },
    expect: {
      maxRequests: 2,
      outcome: 'finished',
      check: (run) =>
        run.after.toString('utf8').includes('read_file')
          ? undefined
          : 'unknown tool error does not list the real tools',
    },
  },
  {
    name: 'overflow on the first call',
    spec: {
      historyTurns: HISTORY,
      agentSteps: [faults.overflow('openai', 4096, 5000), reply('Done after compacting.')],
    },
    // At a 4096-token window the kept part starts inside the last turn: its prefix costs a second summary call.
    expect: { maxRequests: 4, outcome: 'finished', compactions: 1 },
  },
  {
    name: 'overflow again after compaction',
    spec: {
      historyTurns: HISTORY,
      agentSteps: [faults.overflow('vllm', 4096, 5000), faults.overflow('vllm', 4096, 4500), reply('unused')],
    },
    expect: { maxRequests: 4, outcome: 'error', compactions: 1, message: /too long|context/i },
  },
  {
    name: 'summarizer failure',
    // No user message and a model call that fails without output: nothing but the compaction could write.
    spec: {
      historyTurns: BIG_HISTORY,
      userText: '',
      agentSteps: [faults.unauthorized()],
      summarySteps: [faults.serverError(500), faults.serverError(500), faults.serverError(500)],
      maxRetries: 2,
    },
    expect: {
      maxRequests: 4,
      outcome: 'error',
      message: /Compaction failed/,
      check: (run) => (run.before.equals(run.after) ? undefined : 'the session file changed'),
    },
  },
];

/** Cancellation at each stage: streaming text, streaming tool calls, a running tool, summarizing, applying. */
const CANCELLATIONS: Kind[] = [
  {
    name: 'cancel while streaming',
    spec: {
      agentSteps: [reply('word '.repeat(400), { chunkDelayMs: 5, chunkChars: 8 })],
      abortWhen: (event) => event.type === 'textDelta',
    },
    expect: { maxRequests: 1, outcome: 'aborted' },
  },
  {
    name: 'cancel while tool calls stream',
    spec: {
      agentSteps: [
        {
          kind: 'reply',
          text: 'Reading. '.repeat(50),
          chunkDelayMs: 5,
          toolCalls: [
            { name: 'read_file', arguments: { path: 'a.ts' } },
            { name: 'list_dir', arguments: { path: '.' } },
          ],
        },
      ],
      abortWhen: (event) => event.type === 'message',
    },
    expect: { maxRequests: 1, outcome: 'aborted' },
  },
  {
    name: 'cancel while a tool runs',
    spec: {
      agentSteps: [
        toolCalls([
          { name: 'run_command', arguments: { command: 'sleep 20' } },
          { name: 'list_dir', arguments: {} },
        ]),
      ],
      abortWhen: (event) => event.type === 'toolStart',
    },
    expect: { maxRequests: 1, outcome: 'aborted' },
  },
  {
    name: 'cancel while summarizing',
    spec: {
      historyTurns: BIG_HISTORY,
      agentSteps: [reply('unused')],
      summarySteps: [faults.hang()],
      abortWhen: (event) => event.type === 'compactionStart',
    },
    expect: { maxRequests: 1, outcome: 'aborted' },
  },
  {
    name: 'cancel while applying',
    spec: {
      historyTurns: BIG_HISTORY,
      agentSteps: [reply('unused')],
      settings: (settings) => (settings.compaction.review = 'always'),
      review: (proposal) => Promise.resolve({ action: 'apply', proposal, summary: VALID_SUMMARY, edited: false }),
      abortWhen: (event) => event.type === 'compactionReview',
    },
    // The summarizer makes one call per transcript chunk (two at this window size).
    expect: { maxRequests: 3, outcome: 'aborted' },
  },
];

function judge(kind: Kind, run: ScenarioRun): string[] {
  const problems = [...run.problems];
  const requests = run.agentRequests + run.summaryRequests;
  if (requests > kind.expect.maxRequests)
    problems.push(`${requests} requests (${run.agentRequests} agent + ${run.summaryRequests} summary, at most ${kind.expect.maxRequests}): a loop`);
  const done = run.events.at(-1);
  const reason = done?.type === 'done' ? done.reason : 'none';
  if (reason !== kind.expect.outcome) problems.push(`ended "${reason}", expected "${kind.expect.outcome}"`);
  const retries = run.events.filter((event) => event.type === 'retry').length;
  if (retries < (kind.expect.minRetries ?? 0))
    problems.push(`${retries} retry events, expected ${kind.expect.minRetries ?? 0}+`);
  const errors = run.events.filter(isError);
  if (kind.expect.message && !errors.some((event) => kind.expect.message?.test(event.message))) {
    problems.push(`no clear error event (got: ${errors.map((event) => event.message).join(' | ') || 'none'})`);
  }
  if (errors.some((event) => /undefined|\[object Object\]/.test(event.message)))
    problems.push('an error message says undefined/[object Object]');
  const compactions = run.after
    .toString('utf8')
    .split('\n')
    .filter((line) => line.includes('"type":"compaction"')).length;
  if (compactions !== (kind.expect.compactions ?? 0))
    problems.push(`${compactions} compactions appended, expected ${kind.expect.compactions ?? 0}`);
  const extra = kind.expect.check?.(run);
  if (extra) problems.push(extra);
  return problems;
}

async function run(): Promise<FamilyResult> {
  const failures: string[] = [];
  let loops = 0;
  let inconsistent = 0;
  for (const kind of [...KINDS, ...CANCELLATIONS]) {
    const result = await runScenario(kind.spec);
    const problems = judge(kind, result);
    if (problems.some((problem) => problem.includes('a loop'))) loops++;
    if (result.problems.length > 0) inconsistent++;
    failures.push(...problems.map((problem) => `${kind.name}: ${problem}`));
    discardRun(result);
  }
  const kinds = KINDS.length + 1;
  return {
    line: `endpoint faults: ${kinds} kinds + ${CANCELLATIONS.length} cancellation stages, ${loops} loops, ${inconsistent} inconsistent logs`,
    failures,
  };
}

runFamily('endpoint faults', run);
