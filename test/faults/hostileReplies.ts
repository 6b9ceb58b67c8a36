// Fault family (issue 40): replies whose tool calls repeat, omit or inflate their ids, through the real client: caps count calls, each call asks and answers once.
import { readFileSync } from 'node:fs';
import { runAgent } from '../../src/core/agent/agentLoop';
import { OpenAiChatClient } from '../../src/core/llm/openaiChatClient';
import type { ToolResultEntry } from '../../src/core/session/entries';
import { SessionLog } from '../../src/core/session/sessionLog';
import { defaultSettings } from '../../src/core/settings/settings';
import { CountCache } from '../../src/core/tokens/countCache';
import { TokenCounter } from '../../src/core/tokens/tokenCounter';
import { delegateTool, type Delegate } from '../../src/core/tools/delegateTool';
import { builtinTools, ToolRegistry } from '../../src/core/tools/toolRegistry';
import { recordingSummarizer } from '../support/agentFakes';
import { tempWorkspace } from '../support/agentWorkspace';
import { nodeWorkspaceAccess } from '../support/nodeWorkspaceAccess';
import { startScriptedEndpoint } from '../support/scriptedEndpoint';
import { reply, toolCalls, type ScriptedToolCall } from '../support/scriptedSteps';
import { validateChatMessages } from '../support/validateChatMessages';
import { passed, runCases, type CaseOutcome, type HostileCase } from './caseRunner';
import { runFamily } from './familyReport';

/** The per-reply cap of sub-tasks (compactionAgent.tools.delegateMaxPerReply's default). */
const PER_REPLY = 3;

interface ReplyCase {
  name: string;
  calls: ScriptedToolCall[];
  /** The person's answers to the confirmations, in order (default: allow). */
  answers?: boolean[];
  /** Extra checks on the results, in call order. */
  check?: (results: ToolResultEntry[], workspaceRoot: string, outcome: CaseOutcome) => void;
}

const delegate = (n: number, id?: string): ScriptedToolCall => ({ ...(id !== undefined ? { id } : {}), name: 'delegate', arguments: { task: `Look at part ${n}.` } });
const read = (id?: string): ScriptedToolCall => ({ ...(id !== undefined ? { id } : {}), name: 'read_file', arguments: { path: 'notes.txt' } });
const times = <T>(count: number, make: (n: number) => T): T[] => Array.from({ length: count }, (_, n) => make(n));

const CASES: ReplyCase[] = [
  { name: 'six delegate calls sharing one id', calls: times(6, (n) => delegate(n, 'call_0')) },
  { name: 'six delegate calls without ids', calls: times(6, (n) => delegate(n, '')) },
  { name: 'six delegate calls sharing a 100,000-character id', calls: times(6, (n) => delegate(n, 'x'.repeat(100_000))) },
  { name: 'forty delegate calls and forty reads, all sharing one id', calls: times(80, (n) => (n % 2 === 0 ? delegate(n, 'call_0') : read('call_0'))) },
  { name: '300 reads sharing one id', calls: times(300, () => read('call_0')) },
  {
    name: 'a broken and a good call sharing one id',
    calls: [{ id: 'same', name: 'read_file', arguments: '{"path": "no' }, read('same')],
    check: (results, _root, outcome) => {
      if (!results[0]?.content.includes('not valid JSON')) outcome.failures.push('the broken call was not refused for its arguments');
      if (results[1]?.isError || !results[1]?.content.includes('notes for the agent')) outcome.failures.push('the good call sharing its id was refused');
    },
  },
  {
    name: 'two writes sharing one id: the first allowed, the second skipped',
    calls: [
      { id: 'call_0', name: 'write_file', arguments: { path: 'out.txt', content: 'allowed\n' } },
      { id: 'call_0', name: 'write_file', arguments: { path: 'out.txt', content: 'skipped\n' } },
    ],
    answers: [true, false],
    check: (results, root, outcome) => {
      if (readFileSync(`${root}/out.txt`, 'utf8') !== 'allowed\n') outcome.failures.push('the skipped write changed the file');
      if (!results[1]?.content.includes('declined')) outcome.failures.push('the second write was not asked on its own');
    },
  },
];

let sharedCounter: Promise<TokenCounter> | undefined;

/** One reply of `calls`, then a final answer; checks the log, the sub-tasks started and the next request. */
async function runReply(hostile: ReplyCase): Promise<CaseOutcome> {
  const outcome = passed();
  const workspace = tempWorkspace();
  workspace.write('notes.txt', 'notes for the agent\n');
  const endpoint = await startScriptedEndpoint([toolCalls(hostile.calls), reply('Done.')]);
  const log = await SessionLog.create(`${workspace.base}/session.jsonl`, { id: 'hostile-replies' }, { lock: false });
  let started = 0;
  const fakeDelegate: Delegate = (task) => {
    started++;
    return Promise.resolve({ answer: `looked at: ${task}`, shortened: false, steps: 1, ended: 'finished', link: { sessionId: `child-${started}`, calls: 1, promptTokens: 1, completionTokens: 1 } });
  };
  const answers = [...(hostile.answers ?? [])];
  const confirms: number[] = [];
  const access = nodeWorkspaceAccess([workspace.root], {
    trusted: true,
    confirm: () => {
      confirms.push(confirms.length);
      return Promise.resolve(answers.shift() ?? true);
    },
  });
  try {
    sharedCounter ??= TokenCounter.create('gpt-4o');
    const client = new OpenAiChatClient({ baseUrl: endpoint.url, apiKey: 'sk-faults', model: 'demo-model', timeoutMs: 15_000, maxRetries: 0 });
    const events = runAgent({
      log,
      model: client,
      modelId: 'demo-model',
      registry: new ToolRegistry([...builtinTools(), delegateTool(fakeDelegate)]),
      workspace: access,
      settings: defaultSettings(),
      contextWindow: 128_000,
      counter: await sharedCounter,
      cache: new CountCache(),
      summarize: recordingSummarizer().summarize,
      signal: new AbortController().signal,
      userText: 'Go through every part.',
    });
    for await (const event of events) if (event.type === 'error') outcome.failures.push(`error event: ${event.message.slice(0, 160)}`);
    const path = log.path();
    const results = path.filter((entry): entry is ToolResultEntry => entry.type === 'toolResult');
    const delegates = hostile.calls.filter((call) => call.name === 'delegate').length;
    if (started !== Math.min(PER_REPLY, delegates)) outcome.failures.push(`${started} sub-tasks started for ${delegates} delegate calls (cap ${PER_REPLY})`);
    if (results.length !== hostile.calls.length) outcome.failures.push(`${results.length} results for ${hostile.calls.length} calls`);
    if (results.some((result, index) => result.toolName !== hostile.calls[index]?.name)) outcome.failures.push('results out of call order');
    const refused = results.filter((result) => result.toolName === 'delegate' && result.content.startsWith('delegate: not run. One reply may start at most'));
    if (refused.length !== Math.max(0, delegates - PER_REPLY)) outcome.failures.push(`${refused.length} delegate calls told why they did not run, ${Math.max(0, delegates - PER_REPLY)} expected`);
    const writes = hostile.calls.filter((call) => call.name === 'write_file').length;
    if (confirms.length !== writes) outcome.failures.push(`${confirms.length} confirmations for ${writes} writes`);
    const next = endpoint.requests[1]?.body as { messages?: unknown[] } | undefined;
    const problems = validateChatMessages(next?.messages ?? []);
    if (problems.length > 0) outcome.failures.push(`the next request is not valid: ${problems.slice(0, 3).join('; ')}`);
    const wireIds = (next?.messages ?? []).flatMap((message) => ((message as { tool_calls?: Array<{ id: string }> }).tool_calls ?? []).map((call) => call.id));
    if (new Set(wireIds).size !== hostile.calls.length) outcome.failures.push(`${new Set(wireIds).size} distinct call ids on the wire for ${hostile.calls.length} calls`);
    hostile.check?.(results, workspace.root, outcome);
  } finally {
    await log.close();
    await endpoint.close();
    workspace.cleanup();
  }
  return outcome;
}

function replyCases(): HostileCase[] {
  return CASES.map((hostile) => ({ name: hostile.name, run: () => runReply(hostile) }));
}

runFamily('hostile replies', () => runCases('hostile replies', replyCases(), () => `${CASES.reduce((sum, hostile) => sum + hostile.calls.length, 0)} tool calls, every one answered once, sub-tasks within the cap per reply`));
