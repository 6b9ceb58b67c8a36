// What the context, the status item and the panel read of a path, computed per appended entry, equals the whole-path walks they replace.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildContext, carriedRequest, contextParts, restoredEntryIds, splitAtLatestCompaction, wholeExchangesOf } from '../../src/core/context/contextBuilder';
import { droppedEntryIds, pinnedEntryIds, prunedToolResultIds } from '../../src/core/context/contextMarkers';
import { repairToolPairs, type Candidate } from '../../src/core/context/toolPairRepair';
import type { MessageEntry, SessionEntry } from '../../src/core/session/entries';
import { isMessageEntry } from '../../src/core/session/entries';
import { compactionCoverage, shortened } from '../../src/core/views/compactionDescription';
import { entryTitle, toHistoryView } from '../../src/core/views/historyView';
import { CountCache } from '../../src/core/tokens/countCache';
import { countPath } from '../../src/core/tokens/entryTokens';
import { TokenCounter } from '../../src/core/tokens/tokenCounter';
import { addEntryUsage, emptyUsageFigures, pathUsage, RECENT_TURNS, sessionUsage, toUsageView } from '../../src/core/views/usageView';
import type { TurnUsageView } from '../../src/shared/panelViewModels';
import { PathBuilder } from '../support/sessionPathBuilder';

/** restoredEntryIds as it was: every compaction re-read every id ever left out (quadratic in the drops). */
function referenceRestored(path: readonly SessionEntry[]): Set<string> {
  const dropped = new Set<string>();
  const leftOut = new Set<string>();
  let covered = 0;
  for (let index = 0; index < path.length; index++) {
    const entry = path[index] as SessionEntry;
    if (entry.type === 'drop') {
      for (const id of entry.entryIds) {
        if (entry.dropped) dropped.add(id);
        else dropped.delete(id);
      }
      continue;
    }
    if (entry.type !== 'compaction') continue;
    for (const id of leftOut) if (!dropped.has(id)) leftOut.delete(id);
    let cut = index;
    if (entry.firstKeptEntryId !== null) {
      for (let at = index - 1; at >= covered; at--) {
        if (path[at]?.id === entry.firstKeptEntryId) {
          cut = at;
          break;
        }
      }
    }
    for (let at = covered; at < cut; at++) {
      const id = (path[at] as SessionEntry).id;
      if (dropped.has(id)) leftOut.add(id);
    }
    covered = Math.max(covered, cut);
  }
  for (const id of dropped) leftOut.delete(id);
  return leftOut;
}

/** The split as it was: the first kept entry searched from the path's start. */
function referenceSplit(path: readonly SessionEntry[]): { compaction: SessionEntry | null; summarized: SessionEntry[]; kept: SessionEntry[] } {
  let at = -1;
  for (let i = path.length - 1; i >= 0; i--) {
    if (path[i]?.type === 'compaction') {
      at = i;
      break;
    }
  }
  const compaction = at >= 0 ? path[at]! : null;
  if (!compaction || compaction.type !== 'compaction') return { compaction: null, summarized: [], kept: [...path] };
  const firstKept = compaction.firstKeptEntryId === null ? -1 : path.findIndex((entry, i) => i < at && entry.id === compaction.firstKeptEntryId);
  const cut = firstKept >= 0 ? firstKept : at;
  return { compaction, summarized: path.slice(0, cut), kept: [...path.slice(cut, at), ...path.slice(at + 1)] };
}

/** contextParts as it was: whole-path sets and filters on every call. */
function referenceParts(path: readonly SessionEntry[]) {
  const { compaction, summarized, kept } = referenceSplit(path);
  const dropped = droppedEntryIds(path);
  const sent = (entry: MessageEntry): boolean => !dropped.has(entry.id);
  const summarizedMessages = summarized.filter(isMessageEntry);
  const restoredIds = compaction ? referenceRestored(path) : new Set<string>();
  const pinned = wholeExchangesOf(summarizedMessages, pinnedEntryIds(path));
  const resentIds = new Set([...pinned.map((entry) => entry.id), ...restoredIds]);
  const resent = summarizedMessages.filter((entry) => resentIds.has(entry.id) && sent(entry));
  const request = carriedRequest(path);
  return {
    compaction,
    summarized,
    resent,
    restored: resent.filter((entry) => restoredIds.has(entry.id)),
    carried: request && sent(request) && !resentIds.has(request.id) ? request : undefined,
    kept: kept.filter(isMessageEntry).filter(sent),
  };
}

/** pathUsage as it was: one walk of the path per call (the status item made it on every appended entry). */
function referenceUsage(path: readonly SessionEntry[]) {
  const session = emptyUsageFigures();
  const turns: TurnUsageView[] = [];
  for (const entry of path) {
    if (entry.type === 'user' && !entry.synthetic) {
      turns.push({ ...emptyUsageFigures(), turn: turns.length + 1, request: shortened(entry.text), when: entry.timestamp });
      continue;
    }
    const turn = turns.at(-1);
    addEntryUsage(turn ? [session, turn] : [session], entry);
  }
  return { session, turns };
}

/** The panel history's compactions, pins, pinnable messages and sub-tasks as they were read: filters of the whole path. */
function referenceHistory(path: readonly SessionEntry[], tokens: (id: string) => number) {
  const pinned = pinnedEntryIds(path);
  const messages = path.filter(isMessageEntry);
  const pinView = (entry: MessageEntry) => ({ entryId: entry.id, title: entryTitle(entry), tokens: tokens(entry.id) });
  const subtasks: Array<{ sessionId: string; calls: number }> = [];
  for (let index = path.length - 1; index >= 0 && subtasks.length < 10; index--) {
    const entry = path[index]!;
    if (entry.type === 'toolResult' && entry.subagent) subtasks.push({ sessionId: entry.subagent.sessionId, calls: entry.subagent.calls });
  }
  return {
    compactions: path.flatMap((entry) => (entry.type === 'compaction' ? [{ id: entry.id, when: entry.timestamp, tokensBefore: entry.tokensBefore, tokensAfter: entry.tokensAfter, ...compactionCoverage(path, entry), edited: entry.edited, auto: entry.auto }] : [])),
    pins: messages.filter((entry) => pinned.has(entry.id)).map(pinView),
    pinnable: messages.filter((entry) => !pinned.has(entry.id) && entry.type !== 'toolResult').slice(-12).reverse().map(pinView),
    subtasks,
  };
}

type Op =
  | { kind: 'turn'; calls: number; synthetic: boolean; usage: boolean; numbered: boolean; delegated: boolean }
  | { kind: 'compact' | 'drop' | 'undrop' | 'redrop' | 'pin' | 'unpin' | 'prune' | 'branch'; pick: number; span: number };

const MARKERS = ['compact', 'drop', 'undrop', 'redrop', 'pin', 'unpin', 'prune', 'branch'] as const;

const pathOp: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('turn' as const), calls: fc.integer({ min: 0, max: 2 }), synthetic: fc.boolean(), usage: fc.boolean(), numbered: fc.boolean(), delegated: fc.boolean() }) },
  ...MARKERS.map((kind) => ({ weight: 1, arbitrary: fc.record({ kind: fc.constant(kind), pick: fc.nat(), span: fc.integer({ min: 0, max: 4 }) }) })),
);

/** A session from the ops, and the path after each op (so prefixes and branches are all asked about). */
function buildSession(ops: readonly Op[]): SessionEntry[][] {
  const builder = new PathBuilder();
  const paths: SessionEntry[][] = [];
  for (const [n, step] of ops.entries()) {
    const path = builder.path();
    const messages = path.filter(isMessageEntry);
    const chosen = messages.length === 0 ? [] : Array.from({ length: 'span' in step ? step.span : 0 }, (_, i) => messages[(('pick' in step ? step.pick : 0) + i) % messages.length]!.id);
    switch (step.kind) {
      case 'turn': {
        const user = builder.user(`u${n}`, `request number ${n} ${'and more words '.repeat(n % 7)}`);
        if (step.synthetic) (user as { synthetic?: boolean }).synthetic = true;
        // Servers that number calls per response (llama.cpp, Ollama) reuse "call_0" on every turn.
        const calls = Array.from({ length: step.calls }, (_, i) => (step.numbered ? `call_${i}` : `c${n}-${i}`));
        builder.assistant(`a${n}`, calls, `reply ${n}`, step.usage ? { usage: { promptTokens: 100 + n, completionTokens: 5, cachedTokens: n % 3, ...(n % 2 === 0 ? { cost: 0.001 * n } : {}) } } : {});
        calls.forEach((call, i) => {
          const result = builder.tool(`t${n}-${i}`, call);
          if (step.delegated && i === 0) result.subagent = { sessionId: `s${n}`, calls: n % 4, promptTokens: 10 * n, completionTokens: n };
        });
        break;
      }
      case 'compact':
        builder.compaction(`k${n}`, step.span === 0 ? null : step.span === 4 ? 'missing' : (chosen[0] ?? null));
        break;
      case 'drop':
        builder.drop(`d${n}`, step.span === 4 ? [...chosen, 'missing'] : chosen, true);
        break;
      case 'undrop':
      case 'redrop': {
        // Undo (or repeat) an earlier drop on the path: what a compaction summarized while dropped comes back.
        const drops = path.filter((entry) => entry.type === 'drop');
        const earlier = drops.length > 0 ? drops[step.pick % drops.length] : undefined;
        if (earlier?.type === 'drop') builder.drop(`d${n}`, earlier.entryIds, step.kind === 'redrop');
        break;
      }
      case 'pin':
      case 'unpin':
        builder.pin(`p${n}`, chosen[0] ?? 'missing', step.kind === 'pin');
        break;
      case 'prune':
        builder.prune(`x${n}`, messages.filter((entry) => entry.type === 'toolResult').slice(0, step.span).map((entry) => entry.id));
        break;
      case 'branch':
        builder.at(path.length > 0 ? path[step.pick % path.length]!.id : null);
        break;
    }
    paths.push(builder.path());
  }
  return paths;
}

describe('path scans per appended entry', () => {
  it('restoredEntryIds: what a drop undo brought back, as the walk that re-read every left-out id found', () => {
    fc.assert(
      fc.property(fc.array(pathOp, { minLength: 5, maxLength: 80 }), (ops) => {
        for (const path of buildSession(ops)) expect([...restoredEntryIds(path)].sort()).toEqual([...referenceRestored(path)].sort());
      }),
      { numRuns: 300 },
    );
  });

  it('contextParts, the split and the built context: as the whole-path walks gave them, on every path of the session', () => {
    fc.assert(
      fc.property(fc.array(pathOp, { minLength: 5, maxLength: 80 }), (ops) => {
        for (const path of buildSession(ops)) {
          const parts = contextParts(path);
          const reference = referenceParts(path);
          expect({ compaction: parts.compaction, summarized: parts.summarized, resent: parts.resent, restored: parts.restored, carried: parts.carried, kept: parts.kept }).toEqual(reference);
          const split = splitAtLatestCompaction(path);
          expect({ compaction: split.compaction, summarized: split.summarized, kept: split.kept }).toEqual(referenceSplit(path));
          const sequence: Candidate[] = [...reference.resent.map((entry): Candidate => ({ entry, kind: 'pinned' })), ...(reference.carried ? [{ entry: reference.carried, kind: 'pinned' as const }] : []), ...reference.kept.map((entry): Candidate => ({ entry, kind: 'entry' }))];
          const items = repairToolPairs(sequence, prunedToolResultIds(path));
          expect(buildContext(path).items.filter((item) => item.kind !== 'summary')).toEqual(items);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('usage per turn and in total: as the walk of the whole path added it up, on every path of the session', () => {
    fc.assert(
      fc.property(fc.array(pathOp, { minLength: 5, maxLength: 80 }), (ops) => {
        const paths = buildSession(ops);
        for (const path of paths) {
          const reference = referenceUsage(path);
          expect(pathUsage(path)).toEqual(reference);
          expect(sessionUsage(path)).toEqual(reference.session);
          expect(toUsageView(path)).toEqual({ session: reference.session, recentTurns: reference.turns.slice(-RECENT_TURNS), turnCount: reference.turns.length });
        }
        // Asked again out of order (a branch switch back and forth): the figures handed out earlier stay true.
        const first = paths[0] ?? [];
        const held = pathUsage(first);
        for (const path of [...paths].reverse()) expect(toUsageView(path).turnCount).toBe(referenceUsage(path).turns.length);
        expect(held).toEqual(referenceUsage(first));
      }),
      { numRuns: 200 },
    );
  });

  it('the panel history: compactions, pins, pinnable messages and sub-tasks as the whole-path filters read them', async () => {
    const counter = await TokenCounter.create('gpt-4o');
    fc.assert(
      fc.property(fc.array(pathOp, { minLength: 5, maxLength: 80 }), (ops) => {
        const cache = new CountCache();
        for (const path of buildSession(ops)) {
          const counts = countPath(path, counter, cache);
          const view = toHistoryView(path, counts);
          const reference = referenceHistory(path, (id) => counts.full.get(id) ?? 0);
          expect({ compactions: view.compactions, pins: view.pins, pinnable: view.pinnable, subtasks: (view.subtasks ?? []).map((task) => ({ sessionId: task.sessionId, calls: task.calls })) }).toEqual(reference);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('restoredEntryIds: a drop undone after a compaction, then summarized by the next one', () => {
    const builder = new PathBuilder();
    builder.user('u1');
    builder.assistant('a1');
    builder.drop('d1', ['u1', 'a1']);
    builder.user('u2');
    builder.compaction('k1', 'u2');
    builder.drop('d2', ['u1', 'a1'], false);
    expect([...restoredEntryIds(builder.path())].sort()).toEqual(['a1', 'u1']);
    builder.user('u3');
    builder.compaction('k2', 'u3');
    expect([...restoredEntryIds(builder.path())]).toEqual([]);
  });

  it('restoredEntryIds: brought back, then dropped again, then brought back on a branch', () => {
    const builder = new PathBuilder();
    builder.user('u1');
    builder.assistant('a1');
    builder.drop('d1', ['u1', 'a1']);
    builder.user('u2');
    builder.compaction('k1', 'u2');
    const undo = builder.drop('d2', ['u1', 'a1'], false);
    builder.drop('d3', ['u1'], true);
    expect([...restoredEntryIds(builder.path())]).toEqual(['a1']);
    expect(contextParts(builder.path()).restored.map((entry) => entry.id)).toEqual(['a1']);
    builder.at(undo.id).user('u3');
    expect([...restoredEntryIds(builder.path())].sort()).toEqual(['a1', 'u1']);
    expect(contextParts(builder.path()).resent.map((entry) => entry.id)).toEqual(['u1', 'a1']);
  });
});
