// Context in the person's hand: dropping a failed approach (measured, undoable, named by later summaries) and handing off.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyDrop, latestDrop, previewDrop, previewUndo, targetEntryIds } from '../../src/core/agent/dropRunner';
import { SessionEngine } from '../../src/core/agent/sessionEngine';
import { measureContext, type CountingDeps } from '../../src/core/budget/meter';
import { proposeCompaction, type CompactionProposal } from '../../src/core/compaction/compaction';
import { proposeHandoff, startHandoff } from '../../src/core/compaction/handoff';
import { summarize } from '../../src/core/compaction/summarizer';
import { DROPPED_HEADING } from '../../src/core/compaction/summaryAppendix';
import type { ChatMessage } from '../../src/core/context/chatMessage';
import { buildContext } from '../../src/core/context/contextBuilder';
import { parseDropTarget } from '../../src/core/context/contextDrops';
import { contextTurns } from '../../src/core/context/contextTurns';
import { isMessageEntry } from '../../src/core/session/entries';
import { SessionIndexStore } from '../../src/core/session/sessionIndex';
import { SessionLog } from '../../src/core/session/sessionLog';
import { sessionMarkdown } from '../../src/core/session/sessionMarkdown';
import { nodeFileIo } from '../../src/core/storage/fileIo';
import * as nodePath from 'node:path';
import { defaultSettings } from '../../src/core/settings/settings';
import { orphanProblems, recordingSummarizer, tempSession, type TempSession } from '../support/agentFakes';

let session: TempSession;
beforeEach(async () => {
  session = await tempSession();
});
afterEach(async () => {
  await session.cleanup();
});

const FAILED = 'Try a regex-based parser for the nested generics.';
const failedOutput = (n: number): string =>
  Array.from(
    { length: 40 },
    (_, i) => `regex attempt ${n}.${i}: catastrophic backtracking on Map<string, Array<Set<number>>>`,
  ).join('\n');

async function turn(text: string, steps: readonly string[], answer: string): Promise<void> {
  await session.log.append({ type: 'user', text });
  for (const [index, content] of steps.entries()) {
    const id = `call_${session.log.path().length}_${index}`;
    await session.log.append({
      type: 'assistant',
      text: '',
      toolCalls: [{ id, name: 'run_command', arguments: JSON.stringify({ command: `npm test -- ${index}` }) }],
    });
    await session.log.append({ type: 'toolResult', toolCallId: id, toolName: 'run_command', isError: true, content });
  }
  await session.log.append({ type: 'assistant', text: answer, toolCalls: [] });
}

/** Two ordinary turns, a failed approach of three big failing steps, and a turn after it. */
async function sessionWithAFailedApproach(): Promise<void> {
  await turn(
    'Read the parser and tell me how generics are handled.',
    ['parser.ts: parseType() recurses on <'],
    'It recurses on angle brackets.',
  );
  await turn('Add a test for Map<string, number>.', ['1 passing'], 'Added test/parser.test.ts.');
  await turn(
    FAILED,
    [failedOutput(1), failedOutput(2), failedOutput(3)],
    'The regex approach does not work: it backtracks catastrophically.',
  );
  await turn(
    'Go back to the recursive parser and fix the closing >> token.',
    ['3 passing'],
    'Fixed: >> is split into two > tokens.',
  );
}

function deps(window: number): CountingDeps {
  return {
    counter: session.counter,
    cache: session.cache,
    settings: defaultSettings(),
    contextWindow: window,
    systemPrompt: 'You are a coding agent.',
    systemRole: 'system',
    tools: [],
  };
}

const sentText = (messages: readonly ChatMessage[]): string =>
  messages
    .map((message) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content ?? '')))
    .join('\n');

const neverAsked = (): Promise<boolean> => Promise.reject(new Error('no request runs: nothing to stop'));

describe('drop from the context', () => {
  it('drop-a-failed-approach-frees-its-tokens-and-can-be-undone', async () => {
    // With default settings, for an 8k local model and a 1M hosted one alike.
    for (const window of [8_000, 1_000_000]) {
      await session.cleanup();
      session = await tempSession();
      await sessionWithAFailedApproach();
      const engine = new SessionEngine<string>();
      const original = buildContext(session.log.path()).messages;
      const turns = contextTurns(session.log.path());
      expect(turns.map((candidate) => candidate.request)).toEqual([
        'Read the parser and tell me how generics are handled.',
        'Add a test for Map<string, number>.',
        FAILED,
        'Go back to the recursive parser and fix the closing >> token.',
      ]);
      const target = parseDropTarget('3', turns);
      if ('error' in target) throw new Error(target.error);
      const chosen = targetEntryIds(session.log.path(), target);
      if ('error' in chosen) throw new Error(chosen.error);
      expect(chosen.label).toContain(FAILED);

      // Measured before the person confirms: the meter on the path with and without the drop.
      const preview = previewDrop(
        session.log.path(),
        { entryIds: chosen.entryIds, dropped: true, label: chosen.label },
        deps(window),
        session.log.leafId,
      );
      const before = measureContext(session.log.path(), deps(window));
      expect(preview.usedBefore).toBe(before.budget.used);
      expect(preview.tokens).toBeGreaterThan(session.counter.countText(failedOutput(1)) * 3 * 0.9);
      expect(preview.usedBefore - preview.usedAfter).toBe(preview.tokens);

      const entry = await engine.exclusive(
        'dropping from the context',
        () => applyDrop(session.log, preview),
        neverAsked,
      );
      expect(entry?.tokens).toBe(preview.tokens);
      const afterDrop = buildContext(session.log.path()).messages;
      expect(sentText(afterDrop)).not.toContain('regex attempt');
      expect(sentText(afterDrop)).not.toContain(FAILED);
      expect(sentText(afterDrop)).toContain('fix the closing >> token');
      // Whole tool exchanges only: what is sent has no call without its result.
      const sentIds = new Set(
        buildContext(session.log.path()).items.flatMap((item) => (item.entryId ? [item.entryId] : [])),
      );
      expect(orphanProblems(session.log.path().filter((candidate) => sentIds.has(candidate.id)))).toEqual([]);
      expect(buildContext(session.log.path()).items.some((item) => item.kind === 'synthetic')).toBe(false);
      // The meter agrees with the preview once the drop is in place.
      expect(measureContext(session.log.path(), deps(window)).budget.used).toBe(preview.usedAfter);
      // Nothing was deleted: the log on disk still holds every message.
      const reopened = await SessionLog.open(session.log.file, { lock: false });
      expect(
        reopened.log.tree.entries.filter(
          (candidate) => candidate.type === 'toolResult' && candidate.content.includes('regex attempt'),
        ),
      ).toHaveLength(3);
      await reopened.log.close();
      // The Markdown export says what the person dropped.
      expect(sessionMarkdown('Parser work', session.log.path())).toContain('Dropped from the context** by the person: turn 3: the turn');
      // Listed as dropped, and a second drop of it says so.
      expect(contextTurns(session.log.path())[2]?.dropped).toBe(true);
      expect(targetEntryIds(session.log.path(), { kind: 'turns', from: 3, to: 3 })).toEqual({
        error: expect.stringContaining('already dropped') as string,
      });

      // Undone with the same entry kind: the context is exactly what it was.
      expect(latestDrop(session.log.path())?.id).toBe(entry?.id);
      const undo = previewUndo(session.log.path(), deps(window), session.log.leafId);
      expect(undo?.dropped).toBe(false);
      expect(undo?.tokens).toBe(preview.tokens);
      await engine.exclusive('bringing back dropped messages', () => applyDrop(session.log, undo!), neverAsked);
      expect(buildContext(session.log.path()).messages).toEqual(original);
      expect(latestDrop(session.log.path())).toBeUndefined();
      expect(previewUndo(session.log.path(), deps(window), session.log.leafId)).toBeUndefined();
    }
  });

  it('one tool result goes with the step that called it, and a stale preview is refused', async () => {
    await sessionWithAFailedApproach();
    const turns = contextTurns(session.log.path());
    expect(turns[2]?.steps.map((step) => step.number)).toEqual(['3.1', '3.2', '3.3']);
    const chosen = targetEntryIds(session.log.path(), { kind: 'step', number: '3.2' });
    if ('error' in chosen) throw new Error(chosen.error);
    const entries = session.log.path().filter((entry) => chosen.entryIds.includes(entry.id));
    expect(entries.map((entry) => entry.type)).toEqual(['assistant', 'toolResult']);
    const preview = previewDrop(
      session.log.path(),
      { entryIds: chosen.entryIds, dropped: true, label: chosen.label },
      deps(32_000),
      session.log.leafId,
    );
    await session.log.append({ type: 'user', text: 'One more thing.' });
    await expect(applyDrop(session.log, preview)).rejects.toThrow(/changed since this drop was measured/);
    expect(session.log.path().some((entry) => entry.type === 'drop')).toBe(false);
  });

  it('later summaries say the range was dropped on purpose, and do not get its content', async () => {
    await sessionWithAFailedApproach();
    const chosen = targetEntryIds(session.log.path(), { kind: 'turns', from: 3, to: 3 });
    if ('error' in chosen) throw new Error(chosen.error);
    await applyDrop(
      session.log,
      previewDrop(
        session.log.path(),
        { entryIds: chosen.entryIds, dropped: true, label: chosen.label },
        deps(32_000),
        session.log.leafId,
      ),
    );
    await turn('Now document the fix.', ['docs written'], 'Documented in docs/parser.md.');
    const prompts: ChatMessage[][] = [];
    const proposal = await proposeCompaction(session.log, {
      ...deps(32_000),
      force: true,
      signal: new AbortController().signal,
      summarize: (request) => {
        const path = session.log.path();
        return summarize({
          path,
          cut: request.cut,
          entries: request.entries,
          turnPrefixEntries: request.turnPrefixEntries,
          pinned: request.pinned,
          lastRequest: request.lastRequest,
          previous: null,
          complete: (messages) => {
            prompts.push(messages);
            return Promise.resolve(
              '## Goal\nFix generics.\n## Key decisions\n- recursive parser\n## Next steps\n- document',
            );
          },
          counter: session.counter,
          summaryWindow: 32_000,
        });
      },
    });
    expect(proposal).not.toBeNull();
    const asked = sentText(prompts.flat());
    expect(asked).not.toContain('regex attempt');
    expect(asked).toContain('dropped these parts of the conversation on purpose');
    expect(asked).toContain(FAILED);
    const summary = proposal?.summary ?? '';
    expect(summary).toContain(DROPPED_HEADING);
    expect(summary.slice(summary.indexOf(DROPPED_HEADING))).toContain(FAILED);
    // Named once, as dropped: not among the requests the summary carries forward.
    expect(summary.slice(0, summary.indexOf(DROPPED_HEADING))).not.toContain(FAILED);
  });

  it('an invalid range or an empty session gets a clear message, and nothing is written', async () => {
    expect(parseDropTarget('1', contextTurns(session.log.path()))).toEqual({
      error: 'There is no turn 1: there are no turns in the context yet.',
    });
    expect(parseDropTarget('last', [])).toEqual({ error: 'Nothing to drop: there are no turns in the context yet.' });
    await sessionWithAFailedApproach();
    const turns = contextTurns(session.log.path());
    expect(parseDropTarget('3-1', turns)).toEqual({ error: expect.stringContaining('not a valid range') as string });
    expect(parseDropTarget('0', turns)).toEqual({ error: expect.stringContaining('not a valid range') as string });
    expect(parseDropTarget('2-9', turns)).toEqual({ error: 'There is no turn 9: the context has turns 1–4.' });
    expect(parseDropTarget('1.5', turns)).toEqual({ error: expect.stringContaining('there is no step 1.5') as string });
    expect(parseDropTarget('everything please', turns)).toEqual({
      error: expect.stringContaining('is not something /drop understands') as string,
    });
    expect(parseDropTarget('2–3', turns)).toEqual({ kind: 'turns', from: 2, to: 3 });
    expect(parseDropTarget('', turns)).toEqual({ kind: 'list' });
    expect(session.log.path().some((entry) => entry.type === 'drop')).toBe(false);
  });
});

describe('hand-off', () => {
  it('handoff-starts-a-session-with-the-reviewed-summary', async () => {
    // With default settings, for an 8k local model and a 1M hosted one alike.
    for (const window of [8_000, 1_000_000]) {
      await session.cleanup();
      session = await tempSession();
      await sessionWithAFailedApproach();
      const sourceId = session.log.header.id;
      const store = new SessionIndexStore(session.dir, nodeFileIo);
      await store.load();
      const now = new Date().toISOString();
      await store.upsert({
        id: sourceId,
        title: 'Parser work',
        file: nodePath.basename(session.log.file),
        createdAt: now,
        updatedAt: now,
      });
      const sourceBefore = session.log.tree.entries.length;
      const sourceContext = buildContext(session.log.path()).messages;
      const engine = new SessionEngine<CompactionProposal>();

      // Summarized and reviewed as for a compaction: the same summarizer, the proposal waits in the engine.
      const summarizer = recordingSummarizer();
      const proposal = await engine.exclusive(
        'summarizing for a hand-off',
        () =>
          proposeHandoff(session.log, {
            ...deps(window),
            summarize: summarizer.summarize,
            signal: new AbortController().signal,
            instructions: 'Focus on the parser fix.',
          }),
        neverAsked,
      );
      if (!proposal) throw new Error('nothing proposed');
      expect(proposal.handoff).toBe(true);
      // Everything the model sees is summarized, nothing is kept verbatim.
      expect(summarizer.calls[0]?.entries.map((entry) => entry.id)).toEqual(
        session.log
          .path()
          .filter(isMessageEntry)
          .map((entry) => entry.id),
      );
      expect(summarizer.calls[0]?.instructions).toContain('Focus on the parser fix.');
      expect(proposal?.kept).toEqual([]);
      expect(proposal?.tokensAfter).toBeLessThan(proposal?.tokensBefore ?? 0);
      const review = engine.offerReview(proposal, false, 'm', 'replaced');
      const taken = engine.takeReview(review.id);
      const edited = `${taken.proposal.summary}\n- Also: keep the public API of parseType().`;

      let created: SessionLog | undefined;
      const started = await engine.exclusive(
        'starting a new session from the summary',
        () =>
          startHandoff(session.log, taken.proposal, {
            summary: edited,
            edited: true,
            model: 'm',
            source: { sessionId: sourceId, leafId: session.log.leafId, title: 'Parser work' },
            deps: deps(window),
            create: async (from) => {
              created = await SessionLog.create(
                nodePath.join(session.dir, 'handoff.jsonl'),
                { title: 'Parser work (hand-off)', handoffFrom: from },
                { lock: false },
              );
              await store.upsert({
                id: created.header.id,
                title: 'Parser work (hand-off)',
                file: 'handoff.jsonl',
                createdAt: now,
                updatedAt: now,
              });
              return created;
            },
          }),
        neverAsked,
      );
      expect(started).toBeDefined();
      const target = created!;
      // The new session starts with the reviewed (edited) summary, linked back to its source, and nothing else.
      expect(target.header.handoffFrom).toEqual({
        sessionId: sourceId,
        leafId: session.log.leafId,
        title: 'Parser work',
      });
      const seeded = target.path();
      expect(seeded).toHaveLength(1);
      expect(seeded[0]).toMatchObject({
        type: 'compaction',
        summary: edited,
        edited: true,
        firstKeptEntryId: null,
        handoffFrom: { sessionId: sourceId },
      });
      const firstCall = buildContext(seeded, { systemPrompt: 'You are a coding agent.' }).messages;
      expect(firstCall).toHaveLength(2);
      expect(sentText(firstCall)).toContain('keep the public API of parseType()');
      expect(sentText(firstCall)).not.toContain('regex attempt');
      // The edited summary is measured again by the meter: what the new session's budget shows.
      expect(started?.entry.tokensAfter).toBe(measureContext(seeded, deps(window)).budget.used);
      // The source stays whole, in the list beside the new one.
      expect(session.log.tree.entries).toHaveLength(sourceBefore);
      expect(buildContext(session.log.path()).messages).toEqual(sourceContext);
      const reopened = await SessionLog.open(session.log.file, { lock: false });
      expect(reopened.log.tree.entries).toHaveLength(sourceBefore);
      await reopened.log.close();
      expect(
        store
          .list()
          .map((record) => record.id)
          .sort(),
      ).toEqual([sourceId, target.header.id].sort());
      await target.close();

      // A stale proposal (the source moved on) starts nothing.
      const second = await proposeHandoff(session.log, {
        ...deps(window),
        summarize: summarizer.summarize,
        signal: new AbortController().signal,
      });
      await session.log.append({ type: 'user', text: 'One more thing.' });
      let createdAgain = false;
      await expect(
        startHandoff(session.log, second!, {
          summary: second!.summary,
          edited: false,
          source: { sessionId: sourceId, leafId: null, title: 'Parser work' },
          deps: deps(window),
          create: () => {
            createdAgain = true;
            return Promise.reject(new Error('must not create'));
          },
        }),
      ).rejects.toThrow(/changed since this hand-off summary was made/);
      expect(createdAgain).toBe(false);
    }
  });

  it('an empty session has nothing to hand off', async () => {
    expect(
      await proposeHandoff(session.log, {
        ...deps(8_000),
        summarize: recordingSummarizer().summarize,
        signal: new AbortController().signal,
      }),
    ).toBeNull();
  });
});
