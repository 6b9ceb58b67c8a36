// What a person meets around a compaction, with the settings of a user who changed nothing: a hand-off after it, a
// split turn, the summary request at a small window, and /drop undo behind a summary.
import * as nodePath from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyDrop, previewDrop, previewUndo, targetEntryIds } from '../../src/core/agent/dropRunner';
import { measureContext, type CountingDeps } from '../../src/core/budget/meter';
import { applyCompaction, proposeCompaction, type SummarizeFn } from '../../src/core/compaction/compaction';
import { proposeHandoff, startHandoff } from '../../src/core/compaction/handoff';
import { modelSummarizer } from '../../src/core/compaction/summarizer';
import { REQUIRED_HEADINGS } from '../../src/core/compaction/summaryPrompt';
import type { ChatMessage } from '../../src/core/context/chatMessage';
import { buildContext, pinnedEntryIds } from '../../src/core/context/contextBuilder';
import { BROUGHT_BACK_NOTE } from '../../src/core/context/contextMarkers';
import { DEFAULT_CONTEXT_WINDOW } from '../../src/core/llm/contextWindow';
import type { ChatRequest, ModelStream } from '../../src/core/llm/modelStream';
import type { SessionEntry } from '../../src/core/session/entries';
import { SessionLog } from '../../src/core/session/sessionLog';
import { defaultSettings } from '../../src/core/settings/settings';
import { ToolRegistry } from '../../src/core/tools/toolRegistry';
import { tempSession, type TempSession } from '../support/agentFakes';

let session: TempSession;
beforeEach(async () => {
  session = await tempSession();
});
afterEach(async () => {
  await session.cleanup();
});

/** An 8k local model, and the window a user gets when nothing names one: every behaviour holds at both ends. */
const WINDOWS = [8_192, DEFAULT_CONTEXT_WINDOW];

const SYSTEM = 'You are a coding agent working in the user’s repository.';
const TOOLS = new ToolRegistry().definitions();

/** The defaults a user who changed nothing has, at `window`, with the real tool definitions. */
function deps(window: number): CountingDeps {
  return { counter: session.counter, cache: session.cache, settings: defaultSettings(), contextWindow: window, systemPrompt: SYSTEM, systemRole: 'system', tools: TOOLS };
}

const fileText = (seed: number, lines = 30): string =>
  Array.from({ length: lines }, (_, i) => `src/module${seed}.ts:${i + 1}: export function handler${seed}_${i}(input: Request): Response { return route(input, ${seed * 100 + i}); }`).join('\n');

let calls = 0;

/** One tool step: a read_file call and its output. */
async function readStep(seed: number, content = fileText(seed)): Promise<void> {
  const id = `call_${++calls}`;
  await session.log.append({ type: 'assistant', text: '', toolCalls: [{ id, name: 'read_file', arguments: JSON.stringify({ path: `src/module${seed}.ts` }) }] });
  await session.log.append({ type: 'toolResult', toolCallId: id, toolName: 'read_file', isError: false, content });
}

async function turn(request: string, steps: number, seed: number): Promise<void> {
  await session.log.append({ type: 'user', text: request });
  for (let step = 0; step < steps; step++) await readStep(seed * 100 + step);
  await session.log.append({ type: 'assistant', text: `Done with "${request.slice(0, 30)}".`, toolCalls: [] });
}

/** Adds read steps to the open turn until the context holds `share` of the usable budget. */
async function fillTurn(window: number, share: number, seed: number): Promise<void> {
  for (let step = 0; measureContext(session.log.path(), deps(window)).budget.used < measureContext(session.log.path(), deps(window)).budget.usable * share; step++) {
    await readStep(seed * 1000 + step);
  }
}

/** A valid summary of about `tokens` tokens (the most a summarizer may write, at the window's summary size). */
function validSummary(tokens: number): string {
  const filler = 'The agent read the route handlers one by one and noted each handler and the route it serves. ';
  const sections = REQUIRED_HEADINGS.map((heading) => `${heading}\n${heading === '## Next steps' ? '- keep going with the next module' : filler}`);
  const body = sections.join('\n\n');
  const more = Math.max(0, Math.floor((tokens * 0.8 - session.counter.countText(body)) / session.counter.countText(filler)));
  return `${body}\n${filler.repeat(more)}`;
}

/** A summarizing model that records every request it is sent and answers each with `answer`. */
function summaryModel(requests: ChatRequest[], answer: (request: ChatRequest, index: number) => string): ModelStream {
  return {
    async *stream(request) {
      await Promise.resolve();
      requests.push(structuredClone(request));
      yield { type: 'done', text: answer(request, requests.length - 1), toolCalls: [], invalidArguments: [], stopReason: 'stop' };
    },
  };
}

function summarizerFor(window: number, requests: ChatRequest[], answer?: (request: ChatRequest, index: number) => string): SummarizeFn {
  const log = session.log;
  return modelSummarizer({ model: summaryModel(requests, answer ?? ((request) => validSummary(request.maxOutputTokens ?? 1000))), counter: session.counter, summaryWindow: window, path: () => log.path() });
}

const sentText = (messages: readonly ChatMessage[]): string => messages.map((message) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content ?? ''))).join('\n');
const occurrences = (text: string, part: string): number => text.split(part).length - 1;

async function compactNow(window: number, summarize: SummarizeFn): Promise<void> {
  const proposal = await proposeCompaction(session.log, { ...deps(window), summarize, signal: new AbortController().signal, force: true });
  if (!proposal) throw new Error('nothing to compact');
  await applyCompaction(session.log, proposal, { summary: proposal.summary, edited: false, auto: false, deps: deps(window) });
}

async function fresh(): Promise<void> {
  await session.cleanup();
  session = await tempSession();
}

describe('around a compaction', () => {
  it('split-turn-request-sent-once', async () => {
    for (const window of WINDOWS) {
      await fresh();
      await turn('Find where the routes are registered.', 1, 1);
      const request = 'Rename every handler to the verb-noun style (getUser, not userGet) and keep the routes as they are. Marker QX-17.';
      await session.log.append({ type: 'user', text: request });
      // One long turn: the cut falls inside it, so its request is carried verbatim after the summary.
      await fillTurn(window, 1.2, 2);
      const requests: ChatRequest[] = [];
      const proposal = await proposeCompaction(session.log, { ...deps(window), summarize: summarizerFor(window, requests), signal: new AbortController().signal, force: true });
      expect(proposal).not.toBeNull();
      const first = session.log.path().find((entry) => entry.id === proposal!.firstKeptEntryId);
      expect(first?.type).not.toBe('user');
      await applyCompaction(session.log, proposal!, { summary: proposal!.summary, edited: false, auto: false, deps: deps(window) });
      // The summarizer was told the request, and what it was sent fits its window.
      expect(occurrences(sentText(requests.flatMap((sent) => sent.messages)), request)).toBeGreaterThan(0);
      // Every call of the turn from now on sends the request once: carried after the summary, named (not repeated) in it.
      const sent = sentText(buildContext(session.log.path(), { systemPrompt: SYSTEM }).messages);
      expect(occurrences(sent, request)).toBe(1);
      expect(proposal!.summary).toContain('(sent verbatim right after this summary');
      // The figure the person saw is what the meter measures once it is in place.
      expect(measureContext(session.log.path(), deps(window)).budget.used).toBe(proposal!.tokensAfter);
      // And after another step of the same turn, still once.
      await readStep(999);
      expect(occurrences(sentText(buildContext(session.log.path()).messages), request)).toBe(1);
    }
  });

  it('summary-request-fits-the-window', async () => {
    // About the window's size: the 32k window of the report, and an 8k one.
    for (const window of [32_768, 8_192]) {
      await fresh();
      // Approaches the person tried and dropped: every later summary request lists them.
      for (let attempt = 0; attempt < 24; attempt++) {
        await turn(`Try approach ${attempt}: memoize the route table with a ${['Map', 'WeakMap', 'LRU cache', 'trie'][attempt % 4]} keyed by method and path.`, 1, 10 + attempt);
        const dropped = targetEntryIds(session.log.path(), { kind: 'turns', from: attempt + 1, to: attempt + 1 });
        if ('error' in dropped) throw new Error(dropped.error);
        await applyDrop(session.log, previewDrop(session.log.path(), { entryIds: dropped.entryIds, dropped: true, label: dropped.label }, deps(window), session.log.leafId));
      }
      // Turns before it fill most of the window: the summary request carries a full chunk of them.
      for (let t = 0; measureContext(session.log.path(), deps(window)).budget.used < measureContext(session.log.path(), deps(window)).budget.usable * 0.9; t++) {
        await turn(`Read router part ${t} and list its handlers.`, 2, 50 + t);
      }
      // A request with a pasted CI log, carried verbatim after the summary because the cut falls in its turn.
      const ciLog = Array.from({ length: Math.floor(window / 100) }, (_, i) => `[ci] step ${i}: FAIL src/router.test.ts > handler ${i} returned 500 (expected 200) at route.ts:${i + 10}`).join('\n');
      await session.log.append({ type: 'user', text: `CI fails after the rename. Here is the log; find the root cause:\n${ciLog}` });
      await fillTurn(window, 1.4, 70);
      const requests: ChatRequest[] = [];
      // Summaries as long as the summarizer may write, and a first answer that fails validation (so the retry is sent too).
      const answer = (request: ChatRequest, index: number): string => (index === 0 ? 'The agent read files. '.repeat(Math.floor((request.maxOutputTokens ?? 1000) * 0.2)) : validSummary(request.maxOutputTokens ?? 1000));
      const summarize = summarizerFor(window, requests, answer);
      await compactNow(window, summarize);
      // And the next compaction of the same turn, with the first summary to carry forward.
      await fillTurn(window, 1.3, 80);
      await compactNow(window, summarize);
      expect(requests.length).toBeGreaterThan(2);
      for (const sent of requests) {
        // Counted with the tokenizer itself, not our meter: prompt plus the reply asked for must fit the window.
        const prompt = session.counter.countMessages(sent.messages);
        expect(prompt + (sent.maxOutputTokens ?? 0)).toBeLessThanOrEqual(window);
      }
      // The dropped list and the pasted request reached the summarizer.
      const asked = sentText(requests.flatMap((sent) => sent.messages));
      expect(asked).toContain('dropped these parts of the conversation on purpose');
      expect(asked).toContain('Here is the log; find the root cause');
    }
  });

  it('handoff-after-compaction-keeps-pins', async () => {
    for (const window of WINDOWS) {
      await fresh();
      await session.log.append({ type: 'user', text: 'Where is the retry delay configured?' });
      const pinnedOutput = `src/net/retry.ts:12: export const RETRY_DELAY_MS = 4000; // PIN-MARKER agreed with ops, never lower\n${fileText(7, 4)}`;
      await readStep(7, pinnedOutput);
      const pinnedResult = session.log.path().at(-1)!;
      await session.log.append({ type: 'assistant', text: 'In src/net/retry.ts, line 12.', toolCalls: [] });
      await session.log.append({ type: 'pin', targetId: pinnedResult.id, pinned: true });
      for (let t = 0; measureContext(session.log.path(), deps(window)).budget.used < measureContext(session.log.path(), deps(window)).budget.usable * 1.1; t++) {
        await turn(`Now look at module group ${t}.`, 2, 20 + t);
      }
      await compactNow(window, summarizerFor(window, []));
      // The pinned exchange was summarized away and is re-sent verbatim after the summary.
      const compacted = buildContext(session.log.path()).items;
      expect(compacted.some((item) => item.entryId === pinnedResult.id && item.kind === 'pinned')).toBe(true);
      const requests: ChatRequest[] = [];
      const proposal = await proposeHandoff(session.log, { ...deps(window), summarize: summarizerFor(window, requests), signal: new AbortController().signal });
      if (!proposal) throw new Error('nothing to hand off');
      // The hand-off summarizes what the model sees: the pinned output is in what the summarizer was sent.
      expect(sentText(requests.flatMap((sent) => sent.messages))).toContain('PIN-MARKER');
      let created: SessionLog | undefined;
      const started = await startHandoff(session.log, proposal, {
        summary: proposal.summary,
        edited: false,
        source: { sessionId: session.log.header.id, leafId: session.log.leafId, title: 'Retry work' },
        deps: deps(window),
        create: async (from) => {
          created = await SessionLog.create(nodePath.join(session.dir, `handoff-${window}.jsonl`), { title: 'Retry work (hand-off)', handoffFrom: from }, { lock: false });
          return created;
        },
      });
      const target = created!;
      try {
        // The new session's summary says the pin is kept verbatim after it, and it is: the whole output, pinned again.
        expect(started.entry.summary).toContain('kept verbatim after this summary');
        const seeded = target.path();
        const firstCall = sentText(buildContext(seeded, { systemPrompt: SYSTEM }).messages);
        expect(occurrences(firstCall, pinnedOutput)).toBe(1);
        const copies = seeded.filter((entry): entry is Extract<SessionEntry, { type: 'toolResult' }> => entry.type === 'toolResult' && entry.content === pinnedOutput);
        expect(copies).toHaveLength(1);
        expect(pinnedEntryIds(seeded).has(copies[0]!.id)).toBe(true);
        // What the new session's budget shows is the meter's measure of its first call.
        expect(started.entry.tokensAfter).toBe(measureContext(seeded, deps(window)).budget.used);
        expect(proposal.tokensAfter).toBe(started.entry.tokensAfter);
      } finally {
        await target.close();
      }
    }
  });

  it('drop-undo-after-compaction-restores-tokens', async () => {
    for (const window of WINDOWS) {
      await fresh();
      await turn('Read the router.', 1, 1);
      const failed = 'Try a regex router instead of the trie. Marker RX-9.';
      await turn(failed, 3, 2);
      const dropped = targetEntryIds(session.log.path(), { kind: 'turns', from: 2, to: 2 });
      if ('error' in dropped) throw new Error(dropped.error);
      await applyDrop(session.log, previewDrop(session.log.path(), { entryIds: dropped.entryIds, dropped: true, label: dropped.label }, deps(window), session.log.leafId));
      for (let t = 0; measureContext(session.log.path(), deps(window)).budget.used < measureContext(session.log.path(), deps(window)).budget.usable * 1.1; t++) {
        await turn(`Keep the trie; look at module group ${t}.`, 2, 20 + t);
      }
      await compactNow(window, summarizerFor(window, []));
      const compaction = session.log.path().at(-1)!;
      expect(compaction.type).toBe('compaction');
      // The dropped turn lies behind the summary, which names it as dropped and holds none of it.
      expect(sentText(buildContext(session.log.path()).messages)).not.toContain('src/module200.ts:1:');
      const before = measureContext(session.log.path(), deps(window)).budget.used;
      const undo = previewUndo(session.log.path(), deps(window), session.log.leafId);
      if (!undo) throw new Error('no drop to undo');
      // What the undo says it brings back is what the context gains, measured by the meter once it is in place.
      expect(undo.tokens).toBeGreaterThan(session.counter.countText(fileText(200)) * 3 * 0.9);
      const entry = await applyDrop(session.log, undo);
      const after = measureContext(session.log.path(), deps(window)).budget.used;
      expect(after - before).toBe(entry.tokens);
      expect(entry.tokens).toBe(undo.tokens);
      // Back verbatim, once, after the summary that names it as dropped (with a note that it counts again).
      const built = buildContext(session.log.path());
      const request = session.log.path().find((candidate) => candidate.type === 'user' && candidate.text === failed)!;
      expect(built.items.filter((item) => item.entryId === request.id)).toHaveLength(1);
      expect(occurrences(sentText(built.messages), fileText(200))).toBe(1);
      expect(sentText(built.messages)).toContain(BROUGHT_BACK_NOTE);
      // The next compaction summarizes what came back (it is in no summary yet), and then stops sending it.
      const requests: ChatRequest[] = [];
      await turn('One more module.', 1, 90);
      await compactNow(window, summarizerFor(window, requests));
      expect(sentText(requests.flatMap((request) => request.messages))).toContain(failed);
      const latest = buildContext(session.log.path());
      expect(sentText(latest.messages)).not.toContain(fileText(200));
      expect(sentText(latest.messages)).not.toContain(BROUGHT_BACK_NOTE);
    }
  });
});
