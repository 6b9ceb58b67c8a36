// A person reviews a compaction the agent loop proposed: Regenerate then Apply applies exactly what the panel showed,
// nothing of the conversation is lost or sent twice, and declining to stop a request keeps the proposal.
import * as nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/agent/agentEvents';
import { runAgent } from '../../src/core/agent/agentLoop';
import { approveReview, proposeForReview, regenerateReview } from '../../src/core/agent/reviewFlows';
import { SessionEngine } from '../../src/core/agent/sessionEngine';
import type { FlowSession } from '../../src/core/agent/sessionFlows';
import { measureContext, type CountingDeps } from '../../src/core/budget/meter';
import { applyProposal } from '../../src/core/compaction/applyProposal';
import type { CompactionProposal, SummarizeFn, SummarizeRequest } from '../../src/core/compaction/compaction';
import { proposeHandoff } from '../../src/core/compaction/handoff';
import { modelSummarizer } from '../../src/core/compaction/summarizer';
import { REQUIRED_HEADINGS } from '../../src/core/compaction/summaryPrompt';
import { buildContext } from '../../src/core/context/contextBuilder';
import type { CompactionEntry } from '../../src/core/session/entries';
import { isMessageEntry } from '../../src/core/session/entries';
import { SessionLog } from '../../src/core/session/sessionLog';
import { defaultSettings, type Settings } from '../../src/core/settings/settings';
import { collect, scriptedModel } from '../support/agentFakes';
import { baseAgentOptions, useAgentFixture } from '../support/agentFixture';

const fixture = useAgentFixture();

/** A summarizer whose summaries say which one wrote them (`tag`), recording what each call was given. */
function tagged(tag: string, calls: SummarizeRequest[]): SummarizeFn {
  return (request) => {
    calls.push(request);
    const sections = REQUIRED_HEADINGS.map((heading) => `${heading}\n${heading === '## Next steps' ? '- go on' : `Summary ${tag} of ${request.entries.length} messages.`}`);
    return Promise.resolve({
      summary: sections.join('\n\n'),
      ...(request.turnPrefixEntries.length > 0 ? { turnPrefixSummary: `- head of the turn, as summary ${tag} puts it${tag === 'v2' ? ', with its error codes' : ''}` } : {}),
      files: { read: [`${tag}.ts`], modified: [] },
      problems: [],
      needsReview: false,
    });
  };
}

const line = (seed: number, i: number): string => `src/router${seed}.ts:${i}: handler ${seed}.${i} returned 500 (expected 200) — error code E${seed * 100 + i}`;

/** `turns` finished turns with a read step each, then an open turn of `open` read steps (the request the loop continues). */
async function history(turns: number, open: number, timestamp?: string): Promise<void> {
  const at = timestamp ? { timestamp } : {};
  const step = async (seed: number): Promise<void> => {
    const id = `call_${seed}`;
    await fixture.session.log.append({ type: 'assistant', text: '', toolCalls: [{ id, name: 'read_file', arguments: JSON.stringify({ path: `src/router${seed}.ts` }) }], ...at });
    await fixture.session.log.append({ type: 'toolResult', toolCallId: id, toolName: 'read_file', isError: false, content: Array.from({ length: 24 }, (_, i) => line(seed, i)).join('\n'), ...at });
  };
  for (let t = 0; t < turns; t++) {
    await fixture.session.log.append({ type: 'user', text: `Look at router part ${t}.`, ...at });
    await step(t);
    await fixture.session.log.append({ type: 'assistant', text: `Part ${t} checked.`, toolCalls: [], ...at });
  }
  if (open === 0) return;
  await fixture.session.log.append({ type: 'user', text: 'Find why the routes return 500 and fix it. Marker OPEN-REQUEST.', ...at });
  for (let s = 0; s < open; s++) await step(100 + s);
}

function deps(window: number, settings: Settings = defaultSettings()): CountingDeps {
  return { counter: fixture.session.counter, cache: fixture.session.cache, settings, contextWindow: window, systemRole: 'system', tools: [] };
}

interface Reviewed {
  first: CompactionProposal;
  shown: CompactionProposal;
  /** What the summarizer of the shown proposal was given. */
  input: SummarizeRequest;
  events: AgentEvent[];
}

/**
 * Runs the loop with review mode "always"; when its proposal waits, the person regenerates it from the panel (with the
 * session's own deps, as the panel has them, and new instructions) and applies what the panel then shows.
 */
async function regenerateThenApply(settings: Settings, window: number, panelWindow: number, script: Parameters<typeof scriptedModel>[0], userText?: string): Promise<Reviewed> {
  const engine = new SessionEngine<CompactionProposal>();
  const session: FlowSession = { log: fixture.session.log, engine };
  const run = await engine.beginRequest();
  const regenerated: SummarizeRequest[] = [];
  let first: CompactionProposal | undefined;
  let shown: CompactionProposal | undefined;
  const { userText: _go, ...base } = baseAgentOptions(fixture, scriptedModel(script));
  const options = {
    ...base,
    settings,
    contextWindow: window,
    summarize: tagged('v1', []),
    signal: run.signal,
    ...(userText ? { userText } : {}),
    review: (proposal: CompactionProposal) => {
      first = proposal;
      const { review, decision } = engine.awaitReview(proposal, 'gpt-4o', run.signal, 'replaced');
      void (async () => {
        const revised = await regenerateReview(session, review.id, { deps: deps(panelWindow, settings), summarize: tagged('v2', regenerated), instructions: 'Keep the error codes.', signal: new AbortController().signal });
        shown = revised?.proposal;
        await approveReview(session, revised?.id ?? '', { summary: revised?.proposal.summary ?? '', edited: false }, { deps: deps(panelWindow, settings), confirmStop: () => Promise.reject(new Error('nothing to stop: the request waits for this review')) });
      })();
      return decision;
    },
  };
  const events = await collect(runAgent(options));
  run.end();
  if (!first || !shown) throw new Error(`no review: ${JSON.stringify(events.filter((event) => event.type === 'error'))}`);
  return { first, shown, input: regenerated.at(-1)!, events };
}

/** Applied exactly as shown, with nothing of the conversation lost or sent twice, and the figure shown is what goes out. */
function expectAppliedAsShown({ first, shown, input, events }: Reviewed, window: number): void {
  expect(events.filter((event) => event.type === 'error')).toEqual([]);
  expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'finished' });
  const path = fixture.session.log.path();
  const at = path.findIndex((entry) => entry.type === 'compaction');
  const entry = path[at] as CompactionEntry;
  // Every message before the compaction is in what the applied summary replaced, or sent after it: once, not both.
  const replaced = new Set([...input.entries, ...input.turnPrefixEntries].map((message) => message.id));
  const sent = buildContext(path).items.flatMap((item) => (item.entryId !== undefined && item.kind !== 'summary' ? [item.entryId] : []));
  expect(new Set(sent).size).toBe(sent.length);
  for (const message of path.slice(0, at).filter(isMessageEntry)) {
    const inSummary = replaced.has(message.id);
    const inContext = sent.includes(message.id) && message.id !== shown.carriedRequestId;
    expect(inSummary !== inContext, `${message.id} (${message.type}) summarized: ${inSummary}, sent: ${inContext}`).toBe(true);
  }
  // Regenerate rewrote the summary of the cut the loop planned; Apply applied that proposal, every part of it.
  expect(shown.firstKeptEntryId).toBe(first.firstKeptEntryId);
  expect(entry).toMatchObject({ summary: shown.summary, firstKeptEntryId: shown.firstKeptEntryId, carriedRequestId: shown.carriedRequestId, files: shown.files, instructions: 'Keep the error codes.', auto: true });
  expect(entry.turnPrefixSummary).toBe(shown.turnPrefixSummary);
  expect(entry.tokensAfter).toBe(shown.tokensAfter);
  expect(measureContext(path.slice(0, at + 1), deps(window)).budget.used).toBe(shown.tokensAfter);
}

describe('regenerate-then-apply-on-automatic-review-loses-nothing', () => {
  const review = (): Settings => {
    const settings = defaultSettings();
    settings.compaction.review = 'always';
    return settings;
  };

  it('after an overflow: the loop plans the cut for the window the server runs', async () => {
    // The server runs 16k where 32k was believed: the first call is refused, and the loop plans with the lowered window.
    await history(10, 14);
    const fits = (window: number) => (request: { messages: Parameters<typeof fixture.session.counter.countMessages>[0]; maxOutputTokens?: number }) =>
      fixture.session.counter.countMessages(request.messages) + (request.maxOutputTokens ?? 0) <= window ? { text: 'Fixed: the handler now returns 200.' } : { error: { kind: 'overflow' as const, message: `maximum context length is ${window} tokens`, retryable: false, contextWindow: window } };
    const reviewed = await regenerateThenApply(review(), 32_000, 32_000, [fits(16_000), fits(16_000)]);
    expect(reviewed.events.some((event) => event.type === 'compactionStart' && event.reason === 'overflow')).toBe(true);
    expect(reviewed.first.turnPrefixSummary).toBeDefined();
    expectAppliedAsShown(reviewed, 32_000);
  });

  it('with the cache-aware trigger: the loop plans the cut below half the usable budget', async () => {
    // Ten minutes after the last reply the cache is cold: the loop compacts from half the usable budget.
    await history(22, 0, new Date(Date.now() - 10 * 60 * 1000).toISOString());
    // A person who keeps more verbatim: below half the budget the plan has to keep less than that, at the full budget not.
    const settings = review();
    settings.compaction.keepRecentTokens = 8_000;
    const before = measureContext(fixture.session.log.path(), deps(24_000, settings)).budget;
    expect(before.used / before.usable).toBeGreaterThan(0.5);
    expect(before.used / before.usable).toBeLessThan(0.9);
    const reviewed = await regenerateThenApply(settings, 24_000, 24_000, [{ text: 'Part 22 checked too.' }], 'And now part 22, please.');
    expect(reviewed.events.some((event) => event.type === 'compactionStart' && event.reason === 'threshold')).toBe(true);
    expectAppliedAsShown(reviewed, 24_000);
    expect(measureContext(fixture.session.log.path().slice(0, -1), deps(24_000, settings)).budget.used).toBeLessThan(before.usable * 0.5);
  });
});

describe('the person declines to stop a running request', () => {
  it('declined-stop-keeps-the-proposal', async () => {
    await history(12, 0);
    const engine = new SessionEngine<CompactionProposal>();
    const session: FlowSession = { log: fixture.session.log, engine };
    // /compact proposes inside its request; while that request still runs, the person clicks Apply in the panel.
    const run = await engine.beginRequest();
    const review = await proposeForReview(session, { ...deps(16_000), summarize: tagged('v1', []), signal: run.signal, auto: false, modelId: 'gpt-4o', replacedBecause: 'replaced' });
    if (!review) throw new Error('nothing proposed');
    const before = fixture.session.log.path().length;
    const asked: string[] = [];
    const done = await approveReview(session, review.id, { summary: review.proposal.summary, edited: false }, {
      deps: deps(16_000),
      confirmStop: (what) => {
        asked.push(what);
        return Promise.resolve(false);
      },
    });
    // "Stop and Continue" declined: nothing applied, the request runs on, and the proposal still waits, as shown.
    expect(asked).toEqual(['applying']);
    expect(done).toBeUndefined();
    expect(run.signal.aborted).toBe(false);
    expect(fixture.session.log.path()).toHaveLength(before);
    expect(engine.review?.id).toBe(review.id);
    expect(engine.review?.proposal).toBe(review.proposal);
    run.end();
    // Once the request has ended, Apply applies that same proposal.
    const applied = await approveReview(session, review.id, { summary: review.proposal.summary, edited: false }, { deps: deps(16_000), confirmStop: () => Promise.reject(new Error('nothing runs')) });
    expect(applied !== 'answered' && applied?.entry.firstKeptEntryId).toBe(review.proposal.firstKeptEntryId);
    expect(engine.review).toBeUndefined();
  });
});

describe('pins changed while a summary waits for review', () => {
  it('the applied summary names the pins re-sent after it then, not those of the proposal', async () => {
    await history(14, 0);
    const results = fixture.session.log.path().filter((entry) => entry.type === 'toolResult');
    const [early, later] = [results[0]!, results[1]!];
    await fixture.session.log.append({ type: 'pin', targetId: early.id, pinned: true });
    const engine = new SessionEngine<CompactionProposal>();
    const session: FlowSession = { log: fixture.session.log, engine };
    const summaryModel = scriptedModel(Array.from({ length: 8 }, () => ({ text: REQUIRED_HEADINGS.map((heading) => `${heading}\n${heading === '## Next steps' ? '- go on' : 'The routers were read.'}`).join('\n\n') })));
    const summarize = modelSummarizer({ model: summaryModel, counter: fixture.session.counter, summaryWindow: 16_000, path: () => fixture.session.log.path() });
    const review = await proposeForReview(session, { ...deps(16_000), summarize, signal: new AbortController().signal, auto: false, modelId: 'gpt-4o', replacedBecause: 'replaced' });
    if (!review) throw new Error('nothing proposed');
    const named = (id: string): string => `kept verbatim after this summary: [read_file result] ${(fixture.session.log.tree.get(id) as { content: string }).content.split('\n')[0]}`;
    expect(review.proposal.summary).toContain(named(early.id));
    // While the person reads the proposal, they unpin the early output and pin a later one.
    await fixture.session.log.append({ type: 'pin', targetId: early.id, pinned: false });
    await fixture.session.log.append({ type: 'pin', targetId: later.id, pinned: true });
    const applied = await approveReview(session, review.id, { summary: review.proposal.summary, edited: false }, { deps: deps(16_000), confirmStop: () => Promise.reject(new Error('nothing runs')) });
    if (!applied || applied === 'answered') throw new Error('not applied');
    expect(applied.entry.summary).not.toContain(named(early.id));
    expect(applied.entry.summary).toContain(named(later.id));
    const sent = buildContext(fixture.session.log.path()).items.map((item) => item.entryId);
    expect(sent).toContain(later.id);
    expect(sent).not.toContain(early.id);
    expect(measureContext(fixture.session.log.path(), deps(16_000)).budget.used).toBe(applied.entry.tokensAfter);
  });
});

describe('a hand-off regenerated while /handoff waits', () => {
  it('starts the new session from the regenerated summary, through the same apply path', async () => {
    await history(6, 0);
    const engine = new SessionEngine<CompactionProposal>();
    const session: FlowSession = { log: fixture.session.log, engine };
    const run = await engine.beginRequest();
    const first = await proposeHandoff(fixture.session.log, { ...deps(32_000), summarize: tagged('v1', []), signal: run.signal });
    if (!first) throw new Error('nothing to hand off');
    // /handoff waits for the review; the person regenerates it with instructions and applies what the panel shows.
    const { review, decision } = engine.awaitReview(first, 'gpt-4o', run.signal, 'replaced');
    const revised = await regenerateReview(session, review.id, { deps: deps(32_000), summarize: tagged('v2', []), instructions: 'Keep the error codes.', signal: new AbortController().signal });
    expect(await approveReview(session, revised!.id, { summary: revised!.proposal.summary, edited: false }, { deps: deps(32_000), confirmStop: () => Promise.reject(new Error('the request waits')) })).toBe('answered');
    const approved = await decision;
    if (approved.action !== 'apply') throw new Error('not approved');
    expect(approved.proposal).toBe(revised!.proposal);
    let created: SessionLog | undefined;
    const started = await applyProposal(fixture.session.log, approved.proposal, approved, {
      deps: deps(32_000),
      auto: false,
      handoff: {
        source: { sessionId: fixture.session.log.header.id, leafId: fixture.session.log.leafId, title: 'Routers' },
        create: async (from) => (created = await SessionLog.create(nodePath.join(fixture.session.dir, 'handoff.jsonl'), { title: 'Routers (hand-off)', handoffFrom: from }, { lock: false })),
      },
    });
    run.end();
    try {
      expect(started.entry).toMatchObject({ summary: revised!.proposal.summary, instructions: 'Keep the error codes.', files: { read: ['v2.ts'], modified: [] } });
      expect(created?.path()[0]?.id).toBe(started.entry.id);
    } finally {
      await created?.close();
    }
  });
});
