// Restore Pre-Compaction Branch as an undo: nothing done since is forgotten, and nothing is compacted again without asking.
import { describe, expect, it } from 'vitest';
import type { RestoredBranchQuestion } from '../../src/core/agent/agentEvents';
import type { AgentOptions } from '../../src/core/agent/agentLoop';
import { runAgent } from '../../src/core/agent/agentLoop';
import { awaitingCompactionConsent, undoCompaction } from '../../src/core/compaction/compactionUndo';
import { modelSummarizer } from '../../src/core/compaction/summarizer';
import { REQUIRED_HEADINGS } from '../../src/core/compaction/summaryPrompt';
import type { ModelStream } from '../../src/core/llm/modelStream';
import type { CompactionEntry, SessionEntry } from '../../src/core/session/entries';
import { compactionCoverage } from '../../src/core/views/compactionDescription';
import { collect, scriptedModel, type ScriptStep } from '../support/agentFakes';
import { baseAgentOptions, useAgentFixture } from '../support/agentFixture';

const fixture = useAgentFixture();

const bigFile = (n: number): string => Array.from({ length: 120 }, (_, i) => `big${n} line ${i}: ${'measurement data that fills the window '.repeat(3)}`).join('\n');

const summaryModel: ModelStream = {
  async *stream() {
    await Promise.resolve();
    const text = REQUIRED_HEADINGS.map((heading) => `${heading}\nThe agent reads big files for the user.`).join('\n\n');
    yield { type: 'done', text, toolCalls: [], invalidArguments: [], stopReason: 'stop' };
  },
};

function options(script: readonly ScriptStep[], userText: string, model?: ModelStream): AgentOptions {
  return {
    ...baseAgentOptions(fixture, model ?? scriptedModel(script)),
    contextWindow: 8_192,
    userText,
    summarize: modelSummarizer({ model: summaryModel, counter: fixture.session.counter, summaryWindow: 8_192, path: () => fixture.session.log.path() }),
  };
}

const reads = (from: number, count: number, done: string): ScriptStep[] => [
  ...Array.from({ length: count }, (_, i): ScriptStep => ({ toolCalls: [{ name: 'read_file', args: { path: `big${from + i}.txt` } }] })),
  { text: done },
];

const compactionsOn = (path: readonly SessionEntry[]): CompactionEntry[] => path.filter((entry): entry is CompactionEntry => entry.type === 'compaction');
const userTexts = (path: readonly SessionEntry[]): string[] => path.flatMap((entry) => (entry.type === 'user' && !entry.synthetic ? [entry.text] : []));

/** A session that compacted once (turn 1 overflows an 8k window), then a short turn after it. */
async function compactedSession(): Promise<CompactionEntry> {
  for (let i = 0; i < 32; i++) fixture.ws.write(`big${i}.txt`, bigFile(i));
  await collect(runAgent(options(reads(0, 16, 'Read sixteen.'), 'Read big0.txt to big15.txt.')));
  const compaction = compactionsOn(fixture.session.log.path())[0];
  expect(compaction, 'the first turn did not compact').toBeDefined();
  await collect(runAgent(options([{ text: 'Noted: the parser is next.' }], 'Remember that the parser is next.')));
  return compaction!;
}

describe('restore is an undo', () => {
  it('restore-then-continue: every later turn is in the next request, and nothing is compacted without asking', async () => {
    const compaction = await compactedSession();
    const before = fixture.session.log.path();
    const result = await undoCompaction(fixture.session.log, compaction.id);
    expect(result.copied).toBeGreaterThan(0);
    const restored = fixture.session.log.path();
    expect(compactionsOn(restored)).toEqual([]);
    expect(userTexts(restored)).toEqual(userTexts(before));
    // Copies point to their originals, and the compacted branch is still in the tree.
    expect(restored.filter((entry) => entry.copyOf !== undefined).length).toBe(result.copied);
    expect(fixture.session.log.tree.get(compaction.id)).toBeDefined();
    expect(awaitingCompactionConsent(restored)).toBe(true);

    const model = scriptedModel(reads(16, 16, 'Read the rest.'));
    const events = await collect(runAgent(options([], 'And now read big16.txt to big31.txt.', model)));
    const after = fixture.session.log.path();
    // The first call carries every turn made before and after the compaction.
    const first = model.requests[0]?.messages.map((message) => message.content).join('\n') ?? '';
    for (const text of userTexts(before)) expect(first).toContain(text);
    // Growing past the budget on the restored branch: the chat says so with the choices; no summary is made.
    expect(compactionsOn(after)).toEqual([]);
    const stop = events.find((event) => event.type === 'error');
    expect(stop?.type === 'error' ? [stop.restoredOverBudget, stop.message] : stop).toEqual([true, expect.stringContaining('Automatic compaction is paused here until you decide: Resume Automatic Compaction')]);
    expect(userTexts(after)).toContain('And now read big16.txt to big31.txt.');
  });

  it('after-a-chosen-compaction-automatic-compaction-is-back', async () => {
    const compaction = await compactedSession();
    await undoCompaction(fixture.session.log, compaction.id);
    // The person chooses a fresh compaction: after it, automatic compaction is back.
    await fixture.session.log.append({ type: 'compaction', summary: 'manual', firstKeptEntryId: null, tokensBefore: 1, tokensAfter: 1, files: { read: [], modified: [] }, edited: false, auto: false });
    expect(awaitingCompactionConsent(fixture.session.log.path())).toBe(false);
  });

  it('restore-twice: undoing the earlier of two compactions undoes the later one built on it', async () => {
    for (let i = 0; i < 32; i++) fixture.ws.write(`big${i}.txt`, bigFile(i));
    await collect(runAgent(options(reads(0, 16, 'Read sixteen.'), 'Read big0.txt to big15.txt.')));
    await collect(runAgent(options(reads(16, 16, 'Read sixteen more.'), 'Now read big16.txt to big31.txt.')));
    const path = fixture.session.log.path();
    const compactions = compactionsOn(path);
    expect(compactions.length).toBeGreaterThanOrEqual(2);
    const requests = userTexts(path);

    // First restore: the latest compaction only; the earlier one stays.
    await undoCompaction(fixture.session.log, compactions.at(-1)!.id);
    const once = fixture.session.log.path();
    expect(compactionsOn(once).map((entry) => entry.id)).toEqual(compactions.slice(0, -1).map((entry) => entry.id));
    expect(userTexts(once)).toEqual(requests);

    // Second restore, of the first compaction: everything verbatim, each copy pointing to the first original.
    const second = await undoCompaction(fixture.session.log, compactions[0]!.id);
    const twice = fixture.session.log.path();
    expect(compactionsOn(twice)).toEqual([]);
    expect(userTexts(twice)).toEqual(requests);
    expect(second.skippedCompactions).toBe(compactions.length - 2);
    const originals = new Set(path.map((entry) => entry.id));
    for (const entry of twice) if (entry.copyOf !== undefined) expect(originals.has(entry.copyOf)).toBe(true);
  });

  it('restoring-a-compaction-built-upon-skips-the-later-one', async () => {
    for (let i = 0; i < 32; i++) fixture.ws.write(`big${i}.txt`, bigFile(i));
    await collect(runAgent(options(reads(0, 16, 'Read sixteen.'), 'Read big0.txt to big15.txt.')));
    await collect(runAgent(options(reads(16, 16, 'Read sixteen more.'), 'Now read big16.txt to big31.txt.')));
    const path = fixture.session.log.path();
    const compactions = compactionsOn(path);
    const result = await undoCompaction(fixture.session.log, compactions[0]!.id);
    expect(result.skippedCompactions).toBe(compactions.length - 1);
    expect(compactionsOn(fixture.session.log.path())).toEqual([]);
    expect(userTexts(fixture.session.log.path())).toEqual(userTexts(path));
  });

  it('compactions-are-described-by-what-they-covered', async () => {
    const compaction = await compactedSession();
    const coverage = compactionCoverage(fixture.session.log.path(), compaction);
    expect(coverage.firstRequest === '' ? coverage.turns : coverage.firstRequest).toBeTruthy();
    if (coverage.turns > 0) expect(coverage.firstRequest).toBe('Read big0.txt to big15.txt.');
  });
});

describe('a request on a restored branch that would overflow asks in place and goes on', () => {
  /** The restored branch of compactedSession, with the files the next request reads. */
  async function restoredBranch(): Promise<void> {
    const compaction = await compactedSession();
    await undoCompaction(fixture.session.log, compaction.id);
    expect(awaitingCompactionConsent(fixture.session.log.path())).toBe(true);
  }

  const NEXT = 'And now read big16.txt to big31.txt.';

  it('compact: the same request compacts once asked, then finishes its work', async () => {
    await restoredBranch();
    const asked: RestoredBranchQuestion[] = [];
    const events = await collect(
      runAgent({
        ...options(reads(16, 16, 'Read the rest.'), NEXT),
        askRestoredBranch: (question) => {
          asked.push(question);
          return Promise.resolve('compact');
        },
      }),
    );
    expect(asked.length).toBe(1);
    expect(asked[0]!.used).toBeGreaterThan(asked[0]!.usable);
    expect(asked[0]!.refused).toBe(false);
    expect(events.some((event) => event.type === 'restoredBranchQuestion')).toBe(true);
    expect(events.filter((event) => event.type === 'error')).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'finished' });
    const path = fixture.session.log.path();
    expect(compactionsOn(path).length).toBeGreaterThanOrEqual(1);
    // One request: its message is stored once, and its answer came after the compaction.
    expect(userTexts(path).filter((text) => text === NEXT)).toHaveLength(1);
    const last = path.at(-1);
    expect(last?.type === 'assistant' ? last.text : last?.type).toBe('Read the rest.');
    expect(awaitingCompactionConsent(path)).toBe(false);
  });

  it('prune: old tool outputs are pruned by hand, nothing is compacted while that makes room, and the request goes on', async () => {
    await restoredBranch();
    const asked: RestoredBranchQuestion[] = [];
    const base = options(reads(16, 16, 'Read the rest.'), NEXT);
    const events = await collect(
      runAgent({
        ...base,
        // Automatic pruning off: the person's prune is the only one (the question offers it all the same).
        settings: { ...base.settings, pruning: { ...base.settings.pruning, enabled: false } },
        // Prune while there is something to prune, then compact (a prune frees less each time).
        askRestoredBranch: (question) => {
          asked.push(question);
          return Promise.resolve(question.prunable > 0 ? 'prune' : 'compact');
        },
      }),
    );
    expect(asked[0]!.prunable).toBeGreaterThan(0);
    const path = fixture.session.log.path();
    const firstCompaction = path.findIndex((entry) => entry.type === 'compaction');
    const manualPrune = path.findIndex((entry) => entry.type === 'prune' && entry.reason === 'manual');
    expect(manualPrune).toBeGreaterThanOrEqual(0);
    if (firstCompaction >= 0) expect(manualPrune).toBeLessThan(firstCompaction);
    expect(events.some((event) => event.type === 'prune' && event.entry.reason === 'manual')).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'finished' });
    expect(userTexts(path).filter((text) => text === NEXT)).toHaveLength(1);
  });

  it('stop: nothing is compacted or sent that would not fit, and the reply says it stopped as chosen', async () => {
    await restoredBranch();
    const model = scriptedModel(reads(16, 16, 'Read the rest.'));
    const events = await collect(runAgent({ ...options([], NEXT, model), askRestoredBranch: () => Promise.resolve('stop') }));
    const path = fixture.session.log.path();
    expect(compactionsOn(path)).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'error' });
    const stop = events.find((event) => event.type === 'error');
    expect(stop?.type === 'error' ? stop.message : stop).toMatch(/^Stopped as you chose: this restored branch holds [\d,]+ of [\d,]+ usable tokens/);
    expect(awaitingCompactionConsent(path)).toBe(true);
  });

  it("the request's Stop while the question waits ends it (aborted), with nothing compacted", async () => {
    await restoredBranch();
    const abort = new AbortController();
    const events = await collect(
      runAgent({
        ...options(reads(16, 16, 'Read the rest.'), NEXT),
        signal: abort.signal,
        askRestoredBranch: () => {
          abort.abort();
          return Promise.resolve('stop');
        },
      }),
    );
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'aborted' });
    expect(compactionsOn(fixture.session.log.path())).toEqual([]);
    expect(events.filter((event) => event.type === 'error')).toEqual([]);
  });

  it('with a trigger below 100 %, a call that still fits goes out without asking', async () => {
    await restoredBranch();
    const asked: RestoredBranchQuestion[] = [];
    const base = options([{ text: 'Short answer.' }], 'One short question.');
    const events = await collect(
      runAgent({
        ...base,
        // The restored branch fits this window, but is far past a 1 % trigger (and no prune gets it below).
        contextWindow: 32_768,
        settings: { ...base.settings, pruning: { ...base.settings.pruning, enabled: false }, compaction: { ...base.settings.compaction, triggerPercent: 1 } },
        askRestoredBranch: (question) => {
          asked.push(question);
          return Promise.resolve('stop');
        },
      }),
    );
    expect(asked).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'finished' });
  });

  it('a refusal the count did not see coming asks too (refused), and a prune by hand retries the call', async () => {
    await restoredBranch();
    const asked: RestoredBranchQuestion[] = [];
    const base = options([], 'One more question.');
    const model = scriptedModel([{ error: { kind: 'overflow', message: 'maximum context length is 12000 tokens', retryable: false, contextWindow: 12_000 } }, { text: 'Answered after the prune.' }]);
    const events = await collect(
      runAgent({
        ...base,
        model,
        // Our count fits this window; the server's is smaller.
        contextWindow: 32_768,
        askRestoredBranch: (question) => {
          asked.push(question);
          return Promise.resolve('prune');
        },
      }),
    );
    expect(asked.map((question) => question.refused)).toEqual([true]);
    expect(asked[0]!.prunable).toBeGreaterThan(0);
    expect(model.requests).toHaveLength(2);
    expect(events.some((event) => event.type === 'prune' && event.entry.reason === 'manual')).toBe(true);
    expect(compactionsOn(fixture.session.log.path())).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'finished' });
  });
});
