// The CLI's budget and plans on the real fixture sessions: `inspect --json` plan invariants from 8k to 1M, exact `context` counts, the bundled binary.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextSpan } from '../../src/core/budget/pathState';
import { prunedToolResultIds as prunedIds } from '../../src/core/context/contextMarkers';
import { thresholdsFor } from '../../src/core/budget/thresholds';
import { PLAN_WINDOWS } from '../../src/core/cli/inspectCommand';
import type { PlanReport as InspectPlan } from '../../src/core/cli/planReport';
import { defaultCliDeps, runCli } from '../../src/core/cli/runCli';
import { validCuts } from '../../src/core/compaction/cutPlan';
import { defaultSettings } from '../../src/core/settings/settings';
import type { ChatMessage } from '../../src/core/context/chatMessage';
import type { SessionEntry } from '../../src/core/session/entries';
import { SessionLog } from '../../src/core/session/sessionLog';
import { nodeFileIo } from '../../src/core/storage/fileIo';
import { TokenCounter } from '../../src/core/tokens/tokenCounter';
import { tempDir } from '../support/sessionTempDir';
import { PI_FIXTURES_DIR } from '../support/fixturePaths';

const FIXTURES = PI_FIXTURES_DIR;
const FILES = ['before-compaction', 'large-session'] as const;
const WINDOWS = [32_000, 128_000, 200_000] as const;

let dir: string;
let cleanup: () => void;
const sessions = new Map<string, string>();

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { ...defaultCliDeps(), out: (text) => out.push(text), err: (text) => err.push(text) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

type InspectJson = InspectPlan & { planLeafId: string | null; plansByWindow: Record<string, InspectPlan> };

async function inspect(session: string, ...argv: string[]): Promise<InspectJson> {
  const { code, out, err } = await run('inspect', session, '--json', ...argv);
  expect(err).toBe('');
  expect(code).toBe(0);
  return JSON.parse(out) as InspectJson;
}

async function readPath(session: string, leaf?: string): Promise<SessionEntry[]> {
  const { log } = await SessionLog.open(session, { io: nodeFileIo, readOnly: true });
  return log.tree.pathTo(leaf ?? log.leafId);
}

/** Path index of the first entry the latest compaction kept (0 when there is none): nothing before it may be proposed. */
function contextStart(path: readonly SessionEntry[], at: (id: string) => number): number {
  const compaction = [...path].reverse().find((entry) => entry.type === 'compaction');
  if (compaction?.type !== 'compaction') return 0;
  return compaction.firstKeptEntryId === null ? at(compaction.id) : at(compaction.firstKeptEntryId);
}

function expectCutInvariants(path: readonly SessionEntry[], plan: InspectPlan): void {
  const at = (id: string): number => path.findIndex((entry) => entry.id === id);
  const { compaction, budget } = plan;
  const messages = contextSpan(path).messages;
  const cut = messages.findIndex((entry) => entry.id === compaction.firstKeptEntryId);
  expect(cut).toBeGreaterThan(0);
  const summarized = [...compaction.summarizeEntryIds, ...compaction.turnPrefixEntryIds];
  const kept = messages.slice(cut).map((entry) => entry.id);
  expect(summarized).toEqual(messages.slice(0, cut).map((entry) => entry.id));
  const positions = [...summarized, ...kept].map(at);
  expect(positions.every((position, index) => position >= 0 && (index === 0 || position > (positions[index - 1] ?? -1)))).toBe(true);
  expect(new Set([...summarized, ...kept]).size).toBe(summarized.length + kept.length);
  expect(Math.min(...summarized.map(at))).toBeGreaterThanOrEqual(contextStart(path, at));
  const keptSet = new Set(kept);
  const callOwner = new Map<string, string>();
  for (const entry of messages) if (entry.type === 'assistant') for (const call of entry.toolCalls) callOwner.set(call.id, entry.id);
  for (const entry of messages) {
    const owner = entry.type === 'toolResult' ? callOwner.get(entry.toolCallId) : undefined;
    if (owner !== undefined) expect(keptSet.has(entry.id), `${entry.id} answers ${owner}`).toBe(keptSet.has(owner));
  }
  // The kept part fits, unless it is already the smallest possible (no later place to cut).
  const laterCut = validCuts(messages).slice(cut + 1).some(Boolean);
  expect(compaction.tokensKept <= budget.usable || !laterCut).toBe(true);
}

function expectPruneInvariants(path: readonly SessionEntry[], plan: InspectPlan, protectedTools: readonly string[] = []): void {
  const at = (id: string): number => path.findIndex((entry) => entry.id === id);
  const users = contextSpan(path).messages.filter((entry) => entry.type === 'user' && !entry.synthetic);
  const lastTwoTurns = users.length >= 2 ? at(users[users.length - 2]!.id) : 0;
  const already = prunedIds(path);
  for (const id of plan.prune.entryIds) {
    const entry = path[at(id)];
    expect(entry?.type).toBe('toolResult');
    if (entry?.type !== 'toolResult') continue;
    expect(already.has(id)).toBe(false);
    expect(protectedTools).not.toContain(entry.toolName);
    expect(at(id)).toBeLessThan(lastTwoTurns);
    expect(at(id)).toBeGreaterThanOrEqual(contextStart(path, at));
  }
  expect(plan.prune.entryIds.length === 0 ? plan.prune.tokensFreed === 0 : plan.prune.tokensFreed >= plan.thresholds.pruneMinimum).toBe(true);
}

function expectBudgetInvariants(plan: InspectPlan, window: number): void {
  const { budget } = plan;
  expect(budget.contextWindow).toBe(window);
  expect(budget.outputReserve).toBe(thresholdsFor(window, defaultSettings()).outputReserve);
  expect(budget.usable).toBe(budget.contextWindow - budget.outputReserve);
  // The parts always add up to `used`: the status bar, the panel and the decision read one number.
  const { system, tools, summary, messages, toolResults } = budget.breakdown;
  expect(system + tools + summary + messages + toolResults).toBe(budget.used);
  expect(plan.compaction.needed).toBe(budget.used > budget.usable);
  // No calibration is applied by the CLI: `used` is our count, or the report plus what came after it.
  if (plan.anchor === null) expect(budget.used).toBe(plan.counted);
  else expect(budget.used).toBe(plan.counted + plan.anchor.promptTokens - plan.anchor.countedPrompt);
}

beforeAll(async () => {
  ({ dir, cleanup } = tempDir());
  for (const name of FILES) {
    const session = nodePath.join(dir, name, 'session.jsonl');
    const { code } = await run('import', '--from', 'pi', nodePath.join(FIXTURES, `${name}.jsonl`), '--out', session);
    expect(code).toBe(0);
    sessions.set(name, session);
  }
});
afterAll(() => cleanup());

describe.each(FILES)('cli budget on %s', (name) => {
  it('inspect --json plans at 32k, 128k and 200k satisfy the cut, prune and budget invariants', async () => {
    const session = sessions.get(name)!;
    const path = await readPath(session);
    const plans: InspectPlan[] = [];
    for (const window of WINDOWS) {
      const plan = await inspect(session, '--context-window', String(window));
      expect(plan).toMatchObject({ model: 'gpt-4o', encoding: 'o200k_base', budget: { exact: true } });
      expectBudgetInvariants(plan, window);
      expectCutInvariants(path, plan);
      expectPruneInvariants(path, plan);
      plans.push(plan);
    }
    // A bigger window never keeps less verbatim history, and the same context is counted the same.
    expect(plans[0]!.compaction.tokensKept).toBeLessThanOrEqual(plans[2]!.compaction.tokensKept);
    expect(new Set(plans.map((plan) => plan.counted)).size).toBe(1);
  });

  it('inspect --json reports the window and its source, and the plans from an 8k to a 1M window', async () => {
    const session = sessions.get(name)!;
    const path = await readPath(session);
    const report = await inspect(session);
    expect(report.window).toEqual({ tokens: 128_000, source: 'default' });
    expect(report.budget.windowKnown).toBe(false);
    expect(Object.keys(report.plansByWindow).map(Number)).toEqual([...PLAN_WINDOWS]);
    for (const window of PLAN_WINDOWS) {
      const plan = report.plansByWindow[String(window)]!;
      expect(plan.window).toEqual({ tokens: window, source: 'option' });
      expectBudgetInvariants(plan, window);
      expectCutInvariants(path, plan);
      expectPruneInvariants(path, plan);
      if (!plan.compaction.canHelp) expect(plan.compaction.minimumAfter).toBeGreaterThan(plan.budget.usable);
    }
    expect(report.plansByWindow['8192']!.thresholds.keepRecent).toBeLessThan(report.plansByWindow['1048576']!.thresholds.keepRecent);
  });

  it('an early leaf with no usage report yet is estimated and its breakdown sums to used exactly', async () => {
    const session = sessions.get(name)!;
    const path = await readPath(session);
    const firstUser = path.find((entry) => entry.type === 'user')!;
    const plan = await inspect(session, '--leaf', firstUser.id, '--context-window', '32000');
    expect(plan.planLeafId).toBe(firstUser.id);
    expect(plan.budget.estimated).toBe(true);
    expect(plan.anchor).toBeNull();
    expectBudgetInvariants(plan, 32_000);
  });

  it('context --json reports the exact tokenizer count of the messages it prints', async () => {
    const session = sessions.get(name)!;
    const { code, out } = await run('context', session, '--json', '--system', 'You are terse.');
    expect(code).toBe(0);
    const printed = JSON.parse(out) as { messages: ChatMessage[]; tokens: number; exact: boolean; encoding: string; model: string };
    const counter = await TokenCounter.create('gpt-4o');
    expect(printed).toMatchObject({ model: 'gpt-4o', exact: true, encoding: 'o200k_base' });
    expect(printed.tokens).toBe(counter.countMessages(printed.messages));
    expect(printed.tokens).toBeGreaterThan(printed.messages.length * 4);
    // The same context, counted entry by entry by `inspect`, agrees with the whole-request count.
    const plan = await inspect(session, '--system', 'You are terse.');
    expect(plan.counted).toBe(printed.tokens);
  });
});

describe('cli budget options', () => {
  it('protected tools are never pruned', async () => {
    const session = sessions.get('large-session')!;
    const path = await readPath(session);
    const toolOf = (id: string): string => {
      const entry = path.find((candidate) => candidate.id === id);
      return entry?.type === 'toolResult' ? entry.toolName : '';
    };
    // A low prune minimum so the plan surely picks something, independent of the fixture's exact sizes.
    const before = await inspect(session, '--prune-minimum', '1000');
    const protectedTools = [toolOf(before.prune.entryIds[0] ?? '')];
    expect(protectedTools[0]).not.toBe('');
    const plan = await inspect(session, '--prune-minimum', '1000', '--protected-tools', protectedTools.join(','));
    expect(plan.prune.entryIds).not.toEqual(before.prune.entryIds);
    expectPruneInvariants(path, plan, protectedTools);
  });

  it('a model without its own tokenizer is an o200k estimate, in context and inspect', async () => {
    const session = sessions.get('large-session')!;
    const context = JSON.parse((await run('context', session, '--json', '--model', 'llama-3.1-70b')).out) as { exact: boolean; encoding: string };
    expect(context).toEqual(expect.objectContaining({ exact: false, encoding: 'o200k_base' }));
    expect((await inspect(session, '--model', 'llama-3.1-70b')).budget.exact).toBe(false);
  });

  it('bad numbers and unknown leaves give one-line errors and exit 2', async () => {
    const session = sessions.get('large-session')!;
    const cases: Array<[string[], string]> = [
      [['--context-window', 'abc'], 'error: --context-window must be a positive whole number of tokens, got "abc"'],
      [['--context-window', '0'], 'error: --context-window must be a positive whole number of tokens, got "0"'],
      [['--context-window', '-5'], 'error: --context-window must be a positive whole number of tokens, got "-5"'],
      [['--context-window', '1.5e5'], 'error: --context-window must be a positive whole number of tokens, got "1.5e5"'],
      [['--max-output', '12k'], 'error: --max-output must be a positive whole number of tokens, got "12k"'],
      [['--context-window', '99999999999999999999'], 'error: --context-window must be a positive whole number of tokens, got "99999999999999999999"'],
      [['--leaf', 'nope'], `error: no entry nope in ${session}`],
    ];
    for (const [argv, message] of cases) {
      const { code, out, err } = await run('inspect', session, '--json', ...argv);
      expect({ code, out, err }).toEqual({ code: 2, out: '', err: message });
    }
  });

  it('prints a readable budget table without --json', async () => {
    const session = sessions.get('before-compaction')!;
    const { code, out } = await run('inspect', session, '--context-window', '32000');
    expect(code).toBe(0);
    expect(out).toContain('entries: 1005');
    expect(out).toMatch(/budget for gpt-4o \(exact o200k_base counts\):/);
    expect(out).toMatch(/^ {2}context window +32000 {2}from option$/m);
    expect(out).toMatch(/^ {2}usable +29376$/m);
    expect(out).toMatch(/^ {2}tool results +\d+$/m);
    expect(out).toMatch(/^decision before the next call: compact$/m);
    expect(out).toMatch(/^compaction NEEDED: summarize \d+ entries/m);
    // What compaction must keep is bigger than an 8k window's budget: said before any summary is paid for. (At 32k it
    // fits since the user's 51 KB shell output is imported capped like any tool output.)
    const small = await run('inspect', session, '--context-window', '8192');
    expect(small.out).toMatch(/^compaction: CANNOT HELP, the smallest context it could leave is \d+ tokens$/m);
  });
});

describe('bundled binary', () => {
  it('node dist/cli.js (built by esbuild.mjs) prints the same inspect plan as runCli', async () => {
    const root = nodePath.resolve(__dirname, '../..');
    const build = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: root, encoding: 'utf8' });
    expect(build.status, build.stderr).toBe(0);
    const cli = nodePath.join(root, 'dist', 'cli.js');
    expect(readFileSync(cli, 'utf8').startsWith('#!/usr/bin/env node')).toBe(true);
    const session = sessions.get('large-session')!;
    const argv = ['inspect', session, '--json', '--context-window', '32000'];
    const bundled = spawnSync(process.execPath, [cli, ...argv], { encoding: 'utf8' });
    expect(bundled.stderr).toBe('');
    expect(bundled.status).toBe(0);
    expect(JSON.parse(bundled.stdout)).toEqual(JSON.parse((await run(...argv)).out));
    const bad = spawnSync(process.execPath, [cli, 'inspect', session, '--max-output', 'lots'], { encoding: 'utf8' });
    expect({ status: bad.status, stderr: bad.stderr }).toEqual({ status: 2, stderr: 'error: --max-output must be a positive whole number of tokens, got "lots"\n' });
  }, 120_000);
});
