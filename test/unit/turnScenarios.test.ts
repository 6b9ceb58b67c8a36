// One owner of what a turn is: the turn a compaction cut into starts with the request it carries, so /drop, the panel's
// list, the next cut plan and the next summary's appendix all see that request as part of it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyDrop, previewDrop, targetEntryIds } from '../../src/core/agent/dropRunner';
import { measureContext, type CountingDeps } from '../../src/core/budget/meter';
import { applyCompaction, proposeCompaction } from '../../src/core/compaction/compaction';
import type { ChatMessage } from '../../src/core/context/chatMessage';
import { buildContext } from '../../src/core/context/contextBuilder';
import { parseDropTarget } from '../../src/core/context/contextDrops';
import { contextTurns } from '../../src/core/context/contextTurns';
import { DEFAULT_CONTEXT_WINDOW } from '../../src/core/llm/contextWindow';
import type { CompactionEntry } from '../../src/core/session/entries';
import { defaultSettings } from '../../src/core/settings/settings';
import { toTurnViews } from '../../src/core/views/dropView';
import { recordingSummarizer, tempSession, type TempSession } from '../support/agentFakes';

let session: TempSession;
beforeEach(async () => {
  session = await tempSession();
});
afterEach(async () => {
  await session.cleanup();
});

const WINDOWS = [8_192, DEFAULT_CONTEXT_WINDOW];

function deps(window: number): CountingDeps {
  return { counter: session.counter, cache: session.cache, settings: defaultSettings(), contextWindow: window, systemPrompt: 'You are a coding agent.', systemRole: 'system', tools: [] };
}

let calls = 0;
async function readStep(seed: number): Promise<void> {
  const id = `call_${++calls}`;
  await session.log.append({ type: 'assistant', text: '', toolCalls: [{ id, name: 'read_file', arguments: JSON.stringify({ path: `src/m${seed}.ts` }) }] });
  await session.log.append({ type: 'toolResult', toolCallId: id, toolName: 'read_file', isError: false, content: Array.from({ length: 30 }, (_, i) => `src/m${seed}.ts:${i}: export const value${i} = compute(${seed}, ${i});`).join('\n') });
}

/** Read steps in the open turn until the context holds `share` of the usable budget. */
async function fill(window: number, share: number, seed: number): Promise<void> {
  for (let step = 0; measureContext(session.log.path(), deps(window)).budget.used < measureContext(session.log.path(), deps(window)).budget.usable * share; step++) await readStep(seed + step);
}

async function compact(window: number): Promise<CompactionEntry> {
  const proposal = await proposeCompaction(session.log, { ...deps(window), summarize: recordingSummarizer().summarize, signal: new AbortController().signal, force: true });
  if (!proposal) throw new Error('nothing to compact');
  return applyCompaction(session.log, proposal, { summary: proposal.summary, edited: false, auto: true, deps: deps(window) });
}

const sentText = (messages: readonly ChatMessage[]): string => messages.map((message) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content ?? ''))).join('\n');

const TASK = 'Migrate every handler to the new router API. Marker DROPPED-TASK-7.';

describe('the turn a compaction cut into', () => {
  it('drop-of-the-cut-turn-drops-its-carried-request', async () => {
    for (const window of WINDOWS) {
      await session.cleanup();
      session = await tempSession();
      await session.log.append({ type: 'user', text: 'Read the router first.' });
      await readStep(1);
      await session.log.append({ type: 'assistant', text: 'Read it.', toolCalls: [] });
      // One long turn: the compaction cuts into it and carries its request verbatim after the summary.
      await session.log.append({ type: 'user', text: TASK });
      const task = session.log.path().at(-1)!;
      await fill(window, 1.2, 100);
      const compaction = await compact(window);
      expect(compaction.carriedRequestId).toBe(task.id);
      await readStep(900);
      expect(sentText(buildContext(session.log.path()).messages)).toContain(TASK);

      // /drop 1 (the turn the compaction cut into): the task goes with its kept steps, so the model is not asked it again.
      const turns = contextTurns(session.log.path());
      const target = parseDropTarget('1', turns);
      if ('error' in target) throw new Error(target.error);
      const chosen = targetEntryIds(session.log.path(), target);
      if ('error' in chosen) throw new Error(chosen.error);
      const preview = previewDrop(session.log.path(), { entryIds: chosen.entryIds, dropped: true, label: chosen.label }, deps(window), session.log.leafId);
      await applyDrop(session.log, preview);
      expect(sentText(buildContext(session.log.path()).messages)).not.toContain('DROPPED-TASK-7');
      expect(measureContext(session.log.path(), deps(window)).budget.used).toBe(preview.usedAfter);
      // The turn starts with its carried request: /drop and the panel list it by that request, and it holds it.
      expect(turns[0]).toMatchObject({ number: 1, request: TASK, carried: true, restored: false });
      expect(turns[0]?.entryIds[0]).toBe(task.id);
      expect(toTurnViews(turns)[0]?.request).toBe(TASK);
      expect(chosen.label).toContain('Migrate every handler');
      expect(contextTurns(session.log.path())[0]?.dropped).toBe(true);

      // A new request after it; the next compaction neither carries the dropped task nor names it as the last request.
      await session.log.append({ type: 'user', text: 'Instead, write the release notes.' });
      await fill(window, 1.2, 2000);
      const summarizer = recordingSummarizer();
      const proposal = await proposeCompaction(session.log, { ...deps(window), summarize: summarizer.summarize, signal: new AbortController().signal, force: true });
      if (!proposal) throw new Error('nothing to compact');
      expect(proposal.carriedRequestId).not.toBe(task.id);
      expect(summarizer.calls[0]?.lastRequest?.text).toBe('Instead, write the release notes.');
      await applyCompaction(session.log, proposal, { summary: proposal.summary, edited: false, auto: true, deps: deps(window) });
      expect(sentText(buildContext(session.log.path()).messages)).not.toContain('DROPPED-TASK-7');
    }
  });
});
