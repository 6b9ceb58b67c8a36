// One session engine: what a person does while a request runs or a review waits, and what a compaction is measured by.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ReviewAnswer } from '../../src/core/agent/agentEvents';
import { SessionBusyError, SessionEngine } from '../../src/core/agent/sessionEngine';
import { measureContext, requestOutputTokens, type CountingDeps } from '../../src/core/budget/meter';
import { applyCompaction, proposeCompaction } from '../../src/core/compaction/compaction';
import { undoCompaction } from '../../src/core/compaction/compactionUndo';
import { summarize } from '../../src/core/compaction/summarizer';
import { buildContext } from '../../src/core/context/contextBuilder';
import type { SessionEntry } from '../../src/core/session/entries';
import { SessionIndexStore } from '../../src/core/session/sessionIndex';
import { SessionLog } from '../../src/core/session/sessionLog';
import { defaultSettings } from '../../src/core/settings/settings';
import { nodeFileIo } from '../../src/core/storage/fileIo';
import { TokenCounter } from '../../src/core/tokens/tokenCounter';
import { runCli } from '../../src/core/cli/runCli';
import { recordingSummarizer, tempSession, type TempSession } from '../support/agentFakes';
import { summaryInput } from '../support/summaryInputs';

let session: TempSession;
beforeEach(async () => {
  session = await tempSession();
});
afterEach(async () => {
  await session.cleanup();
});

const line = (n: number): string => `line ${n}: ${'the build log shows the parser failing on nested generics '.repeat(3)}`;
const output = (lines: number, seed: number): string => Array.from({ length: lines }, (_, i) => line(i + seed)).join('\n');

/** `count` turns of a request, one read_file call with its output, and an answer. */
async function turns(count: number, lines: number, start = 0): Promise<void> {
  for (let t = start; t < start + count; t++) {
    await session.log.append({ type: 'user', text: `Look at part ${t} of the log.` });
    await session.log.append({ type: 'assistant', text: '', toolCalls: [{ id: `call_${t}`, name: 'read_file', arguments: JSON.stringify({ path: `log${t}.txt` }) }] });
    await session.log.append({ type: 'toolResult', toolCallId: `call_${t}`, toolName: 'read_file', isError: false, content: output(lines, t * 1000) });
    await session.log.append({ type: 'assistant', text: `Part ${t} shows nothing unusual.`, toolCalls: [] });
  }
}

/** Defaults a user who changed nothing has, at the given window. */
function deps(window: number): CountingDeps {
  return { counter: session.counter, cache: session.cache, settings: defaultSettings(), contextWindow: window, systemPrompt: 'You are a coding agent.', systemRole: 'system', tools: [] };
}

const apply = (summary: string, edited = false): ReviewAnswer => ({ action: 'apply', summary, edited });

describe('one owner of a session state', () => {
  it('compact-while-auto-review-waits-cancels-the-waiting-one', async () => {
    const engine = new SessionEngine<string>();
    const run = await engine.beginRequest();
    const { decision } = engine.awaitReview('automatic proposal', 'm', run.signal, 'replaced');
    expect(engine.state).toBe('awaitingReview');
    // Compact Now from the palette: the waiting request is answered, not left hanging, and then stops.
    const compacted = engine.exclusive('compacting', () => Promise.resolve(engine.offerReview('manual proposal', false, 'm', 'replaced').id), () => Promise.reject(new Error('must not ask')), {
      replacesReview: 'Replaced by your Compact Now.',
    });
    expect(await decision).toEqual({ action: 'cancel', reason: 'Replaced by your Compact Now.' });
    expect(run.signal.aborted).toBe(true);
    run.end();
    const id = await compacted;
    expect(engine.review?.proposal).toBe('manual proposal');
    expect(engine.review?.id).toBe(id);
    expect(engine.state).toBe('idle');
  });

  it('a second automatic proposal answers the first one that waits, with a reason; two sessions never touch each other', async () => {
    const first = new SessionEngine<string>();
    const second = new SessionEngine<string>();
    const runA = await first.beginRequest();
    const runB = await second.beginRequest();
    const a = first.awaitReview('A', 'm', runA.signal, 'A was replaced');
    const b = second.awaitReview('B', 'm', runB.signal, 'B was replaced');
    expect(first.review?.proposal).toBe('A');
    expect(second.review?.proposal).toBe('B');
    first.settle(first.takeReview(a.review.id), apply('summary A'));
    // The waiting request is told to apply the proposal the review holds: the engine says which one.
    expect(await a.decision).toEqual({ ...apply('summary A'), proposal: 'A' });
    expect(second.review?.proposal).toBe('B');
    const replaced = second.awaitReview('B2', 'm', runB.signal, 'B was replaced');
    expect(await b.decision).toEqual({ action: 'cancel', reason: 'B was replaced' });
    runB.end();
    expect(await replaced.decision).toEqual({ action: 'cancel' });
    runA.end();
  });

  it('restore-while-a-command-runs-waits: the restore asks, stops the request, waits for its last entry, then moves the leaf', async () => {
    const engine = new SessionEngine<string>();
    await session.log.append({ type: 'user', text: 'Run the tests.' });
    const call = await session.log.append({ type: 'assistant', text: '', toolCalls: [{ id: 'c1', name: 'run_command', arguments: '{"command":"npm test"}' }] });
    const run = await engine.beginRequest();
    // The running command finishes its result only after it is told to stop.
    const loop = new Promise<void>((resolve) => {
      run.signal.addEventListener('abort', () => {
        void session.log.append({ type: 'toolResult', toolCallId: 'c1', toolName: 'run_command', isError: true, content: 'cancelled' }).then(() => {
          run.end();
          resolve();
        });
      });
    });
    const asked: string[] = [];
    const restored = engine.exclusive('restoring a checkpoint', async () => {
      const atMove = session.log.path().at(-1);
      await session.log.moveLeaf(call.parentId ?? '', 'switch');
      return atMove;
    }, (what) => {
      asked.push(what);
      return Promise.resolve(true);
    });
    await loop;
    const atMove = await restored;
    expect(asked).toEqual(['restoring a checkpoint']);
    // The result landed on the old branch with its call before the leaf moved: never on the new branch without it.
    expect(atMove?.type).toBe('toolResult');
    expect(session.log.path().some((entry) => entry.type === 'toolResult')).toBe(false);
    // A request sent meanwhile waits for the restore instead of interleaving with it.
    expect(engine.state).toBe('idle');
  });

  it('a restore the person declines leaves the running request alone', async () => {
    const engine = new SessionEngine<string>();
    const run = await engine.beginRequest();
    const result = await engine.exclusive('switching branch', () => Promise.resolve('moved'), () => Promise.resolve(false));
    expect(result).toBeUndefined();
    expect(run.signal.aborted).toBe(false);
    expect(engine.state).toBe('running');
    run.end();
  });

  it('a request waits while a restore runs, and a second request of the same session is refused with a reason', async () => {
    const engine = new SessionEngine<string>();
    let release = (): void => undefined;
    const restoring = engine.exclusive('restoring', () => new Promise<void>((resolve) => (release = resolve)), () => Promise.resolve(true));
    let started = false;
    const next = engine.beginRequest().then((run) => {
      started = true;
      return run;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(started).toBe(false);
    expect(engine.state).toBe('busy');
    release();
    await restoring;
    const run = await next;
    await expect(engine.beginRequest()).rejects.toBeInstanceOf(SessionBusyError);
    run.end();
  });
});

describe('a compaction is measured by what will be sent', () => {
  it('pinned-results-count-in-the-proposal', async () => {
    // History well beyond the kept quarter of the 32k window, so the pinned first results lie in the summarized part.
    await turns(28, 20);
    const results = session.log.path().filter((entry) => entry.type === 'toolResult');
    for (const result of results.slice(0, 6)) await session.log.append({ type: 'pin', targetId: result.id, pinned: true });
    const before = measureContext(session.log.path(), deps(32_000));
    const proposal = await proposeCompaction(session.log, { ...deps(32_000), summarize: recordingSummarizer().summarize, signal: new AbortController().signal, force: true });
    expect(proposal).not.toBeNull();
    // The six pinned exchanges are in the figure the person sees, and in the kept list.
    const pinnedIds = results.slice(0, 6).map((entry) => entry.id);
    expect(proposal!.kept.map((size) => size.id)).toEqual(expect.arrayContaining(pinnedIds));
    await applyCompaction(session.log, proposal!, { summary: proposal!.summary, edited: false, auto: false, deps: deps(32_000) });
    const after = measureContext(session.log.path(), deps(32_000));
    expect(after.budget.used).toBe(proposal!.tokensAfter);
    expect(after.budget.used).toBeLessThan(before.budget.used);
  });

  it('inspect --json reports the measured after of the planned compaction, pins included', async () => {
    await turns(28, 20);
    const inspect = async (): Promise<{ compaction: { tokensAfter: number | null; firstKeptEntryId: string | null } }> => {
      const out: string[] = [];
      const code = await runCli(['inspect', session.log.file, '--json', '--context-window', '32000'], { io: nodeFileIo, out: (text) => out.push(text), err: () => undefined, createCounter: (model) => TokenCounter.create(model) });
      expect(code).toBe(0);
      return JSON.parse(out.join('\n')) as { compaction: { tokensAfter: number | null; firstKeptEntryId: string | null } };
    };
    const plain = await inspect();
    expect(plain.compaction.tokensAfter).not.toBeNull();
    const results = session.log.path().filter((entry) => entry.type === 'toolResult');
    for (const result of results.slice(0, 6)) await session.log.append({ type: 'pin', targetId: result.id, pinned: true });
    const pinned = await inspect();
    expect(pinned.compaction.firstKeptEntryId).toBe(plain.compaction.firstKeptEntryId);
    const pinnedCost = results.slice(0, 6).reduce((sum, entry) => sum + session.counter.countText(entry.type === 'toolResult' ? entry.content : ''), 0);
    expect(pinned.compaction.tokensAfter! - plain.compaction.tokensAfter!).toBeGreaterThan(pinnedCost * 0.9);
  });

  it('an edited summary is measured again when applied', async () => {
    await turns(14, 20);
    const proposal = await proposeCompaction(session.log, { ...deps(32_000), summarize: recordingSummarizer().summarize, signal: new AbortController().signal, force: true });
    const longer = `${proposal!.summary}\n\n${'The person added a long note about the parser. '.repeat(80)}`;
    const entry = await applyCompaction(session.log, proposal!, { summary: longer, edited: true, auto: false, deps: deps(32_000) });
    expect(entry.tokensAfter).toBeGreaterThan(proposal!.tokensAfter);
    expect(measureContext(session.log.path(), deps(32_000)).budget.used).toBe(entry.tokensAfter);
  });

  it('split-turn-compaction-sends-the-request-once', async () => {
    const request = 'Refactor the parser so nested generics parse; keep the public API. '.repeat(12).trim();
    await session.log.append({ type: 'user', text: request });
    for (let i = 0; i < 12; i++) {
      await session.log.append({ type: 'assistant', text: '', toolCalls: [{ id: `c${i}`, name: 'read_file', arguments: JSON.stringify({ path: `src/p${i}.ts` }) }] });
      await session.log.append({ type: 'toolResult', toolCallId: `c${i}`, toolName: 'read_file', isError: false, content: output(30, i * 100) });
    }
    const path = session.log.path();
    const firstKept = path.filter((entry) => entry.type === 'assistant')[8]!;
    const summarized = path.slice(0, path.indexOf(firstKept));
    const counter = await TokenCounter.create('gpt-4o');
    const result = await summarize({
      path,
      ...summaryInput(path, { summarize: [], prefix: summarized.map((entry) => entry.id), firstKept: firstKept.id }),
      previous: null,
      complete: () => Promise.resolve('## Goal\nRefactor.\n## Next steps\n- go on'),
      counter,
      summaryWindow: 32_000,
    });
    await session.log.append({ type: 'compaction', summary: result.summary, firstKeptEntryId: firstKept.id, turnPrefixSummary: result.turnPrefixSummary ?? 'prefix', tokensBefore: 1, tokensAfter: 1, files: result.files, edited: false, auto: true });
    const sent = buildContext(session.log.path()).messages.map((message) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content))).join('\n');
    expect(sent.split(request).length - 1).toBe(1);
    // And after the turn ends and another begins, still once.
    await session.log.append({ type: 'assistant', text: 'Done.', toolCalls: [] });
    await session.log.append({ type: 'user', text: 'Thanks, now run the tests.' });
    const later = buildContext(session.log.path()).messages.map((message) => (typeof message.content === 'string' ? message.content : '')).join('\n');
    expect(later.split(request).length - 1).toBe(1);
  });

  it('the appendix counts its separators and stays within its cap for thousands of tiny or empty requests', async () => {
    for (let i = 0; i < 5000; i++) await session.log.append({ type: 'user', text: i % 4 === 0 ? '' : 'x' });
    await session.log.append({ type: 'assistant', text: 'ok', toolCalls: [] });
    await session.log.append({ type: 'user', text: 'last' });
    await session.log.append({ type: 'assistant', text: 'ok', toolCalls: [] });
    const path = session.log.path();
    const counter = await TokenCounter.create('gpt-4o');
    const maxSummaryTokens = 2_000;
    const result = await summarize({
      path,
      ...summaryInput(path, { summarize: path.slice(1, -1).map((entry) => entry.id), firstKept: path.at(-1)!.id }),
      previous: null,
      complete: () => Promise.resolve('## Goal\nTiny.\n## Next steps\n- go on'),
      counter,
      summaryWindow: 8_000,
      maxSummaryTokens,
    });
    const appendix = result.summary.slice(result.summary.indexOf('## Files (recorded by the agent)'));
    expect(counter.countText(appendix)).toBeLessThanOrEqual(maxSummaryTokens / 2);
    expect(appendix).toMatch(/earlier requests? not listed/);
  });
});

describe('undo without side effects', () => {
  it('undo-does-not-anchor-on-copied-usage', async () => {
    await turns(14, 20);
    const proposal = await proposeCompaction(session.log, { ...deps(16_000), summarize: recordingSummarizer().summarize, signal: new AbortController().signal, force: true });
    const compaction = await applyCompaction(session.log, proposal!, { summary: proposal!.summary, edited: false, auto: true, deps: deps(16_000) });
    // The server answered from the small compacted prompt and reported it.
    await session.log.append({ type: 'user', text: 'And the next part?' });
    await session.log.append({ type: 'assistant', text: 'Nothing new.', toolCalls: [], model: 'gpt-4o', usage: { promptTokens: compaction.tokensAfter, completionTokens: 5 } });
    const originalTime = session.log.path().at(-1)!.timestamp;
    await new Promise((resolve) => setTimeout(resolve, 15));
    await undoCompaction(session.log, compaction.id);
    const restored = measureContext(session.log.path(), deps(16_000));
    // The full history is back, and the meter says so: the copied report is of another prompt.
    expect(restored.anchor).toBeNull();
    expect(restored.budget.used).toBeGreaterThan(compaction.tokensBefore);
    const copy = session.log.path().find((entry): entry is Extract<SessionEntry, { type: 'assistant' }> => entry.type === 'assistant' && entry.copyOf !== undefined && entry.usage !== undefined);
    expect(copy?.timestamp).toBe(originalTime);
  });
});

describe('output room', () => {
  it('first-local-request-gets-the-output-reserve', async () => {
    let next = 0;
    for (const window of [8_192, 16_384]) {
      // A local model: an unknown tokenizer, no usage report yet, and a prompt that nearly fills the budget.
      const local: CountingDeps = { ...deps(window), counter: await TokenCounter.create('qwen2.5-coder:7b') };
      let measured = measureContext(session.log.path(), local);
      while (measured.budget.used < measured.budget.usable * 0.85) {
        await turns(1, 3, next++);
        measured = measureContext(session.log.path(), local);
      }
      expect(measured.budget.used).toBeLessThanOrEqual(measured.budget.usable);
      const requested = requestOutputTokens(measured, local);
      expect(requested).toBeGreaterThanOrEqual(measured.thresholds.outputReserve);
      expect(measured.budget.used + requested).toBeLessThanOrEqual(window);
    }
  });
});

describe('the session index', () => {
  it('two-windows-keep-each-others-sessions', async () => {
    const dir = realpathSync(mkdtempSync(nodePath.join(tmpdir(), 'two-windows-')));
    try {
      const one = new SessionIndexStore(dir, nodeFileIo);
      const two = new SessionIndexStore(dir, nodeFileIo);
      await one.load();
      await two.load();
      const record = async (store: SessionIndexStore, id: string): Promise<void> => {
        const log = await SessionLog.create(nodePath.join(dir, `${id}.jsonl`), { id, title: id }, { lock: false });
        await log.close();
        await store.upsert({ id, title: id, file: `${id}.jsonl`, createdAt: new Date().toISOString(), updatedAt: new Date().toISOString() });
      };
      await record(one, 'from-one');
      await record(two, 'from-two');
      await record(one, 'also-from-one');
      const fresh = new SessionIndexStore(dir, nodeFileIo);
      expect((await fresh.load()).sessions.map((entry) => entry.id).sort()).toEqual(['also-from-one', 'from-one', 'from-two']);
      // A deletion in one window is not undone by the other's next write.
      rmSync(nodePath.join(dir, 'from-two.jsonl'));
      await two.remove('from-two');
      await record(one, 'third-from-one');
      await one.refresh();
      expect(one.list().map((entry) => entry.id).sort()).toEqual(['also-from-one', 'from-one', 'third-from-one']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
