// Every list a view or a request shows is bounded by size, and says how many items it left out: 8,000 drops, turns, compactions, pins.
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/core/context/chatMessage';
import { droppedParts, DROPPED_PARTS_LIMIT } from '../../src/core/context/contextDrops';
import { contextTurns, type ContextTurn } from '../../src/core/context/contextTurns';
import { DROPPED_HEADING } from '../../src/core/compaction/summaryAppendix';
import { summarize, type Complete } from '../../src/core/compaction/summarizer';
import { boundList } from '../../src/core/session/boundedList';
import { TokenCounter } from '../../src/core/tokens/tokenCounter';
import { dropListing, STEP_LIMIT, toTurnViews } from '../../src/core/views/dropView';
import { toHistoryView } from '../../src/core/views/historyView';
import { PathBuilder } from '../support/sessionPathBuilder';
import { summaryInput } from '../support/summaryInputs';

const SUMMARY = ['## Goal', 'Finish the parser.', '## Constraints and preferences', '- none', '## Progress', '### Done', '- Read it.', '### In progress', '- Parsing.', '### Blocked', '(none)', '## Key decisions', '- Keep it.', '## Next steps', '- Run the tests.', '## Critical context', '- src/parser.ts'].join('\n');

/** `turns` requests, each answered, each then dropped by the person; then one request the compaction keeps. */
function droppedTurns(turns: number): PathBuilder {
  const builder = new PathBuilder();
  for (let turn = 0; turn < turns; turn++) {
    builder.user(`u${turn}`, `attempt ${turn}: try the approach with the regex rewrite number ${turn}`);
    builder.assistant(`a${turn}`, [], `That did not work (${turn}).`);
    builder.drop(`d${turn}`, [`u${turn}`, `a${turn}`]);
  }
  builder.user('work', 'Now do it with the tokenizer instead.');
  builder.assistant('answer', [], 'On it.');
  builder.user('last', 'And add a test.');
  return builder;
}

/** The number in "(N earlier dropped parts not listed)" and the lines listed beside it, in a dropped-parts section. */
function droppedSection(text: string): { notListed: number; listed: number } {
  const lines = text.split('\n').filter((line) => /^- |^\(/.test(line) && /approach with the regex rewrite|earlier dropped part/.test(line));
  const note = lines.map((line) => /\((\d+) earlier dropped parts? not listed\)/.exec(line)?.[1]).find((count) => count !== undefined);
  return { notListed: Number(note ?? 0), listed: lines.filter((line) => line.includes('regex rewrite')).length };
}

describe('bounded lists', () => {
  it('dropped-parts-list-is-bounded-and-counted: 8,000 drops give the newest within 12,000 characters and count the rest', () => {
    const path = droppedTurns(8_000).path();
    const parts = droppedParts(path, path.length - 1);
    // Before: every drop, one line each, 8,000 lines and about 240,000 characters.
    expect(parts.length).toBeLessThanOrEqual(DROPPED_PARTS_LIMIT.maxItems);
    expect(parts.join('\n').length).toBeLessThanOrEqual(DROPPED_PARTS_LIMIT.maxChars + parts.length);
    expect(parts.length + parts.omitted).toBe(8_000);
    // The newest are the ones kept.
    expect(parts.at(-1)).toContain('attempt 7999');
    expect(parts[0]).toContain(`attempt ${8_000 - parts.length}`);
  });

  it('the summary request and its appendix count every dropped part, listed or not (the caps agree)', async () => {
    const builder = droppedTurns(8_000);
    const path = builder.path();
    const counter = await TokenCounter.create('gpt-4o');
    const asked: ChatMessage[][] = [];
    const complete: Complete = (messages) => {
      asked.push(messages);
      return Promise.resolve(SUMMARY);
    };
    for (const summaryWindow of [8_192, 1_000_000]) {
      asked.length = 0;
      const result = await summarize({ path, ...summaryInput(path, { summarize: ['work', 'answer'], firstKept: 'last' }), previous: null, complete, counter, summaryWindow });
      const request = asked[0]?.map((message) => (typeof message.content === 'string' ? message.content : '')).join('\n') ?? '';
      const inRequest = droppedSection(request);
      expect(inRequest.notListed + inRequest.listed, `request at ${summaryWindow}`).toBe(8_000);
      expect(inRequest.listed).toBeGreaterThan(0);
      const appendix = result.summary.slice(result.summary.indexOf(DROPPED_HEADING));
      const inAppendix = droppedSection(appendix);
      expect(inAppendix.notListed + inAppendix.listed, `appendix at ${summaryWindow}`).toBe(8_000);
    }
  });

  it('/drop lists the newest turns and tool steps, and says how many earlier ones it left out', () => {
    const steps = (turn: number, count: number): ContextTurn['steps'] => Array.from({ length: count }, (_, n) => ({ number: `${turn}.${n + 1}`, entryIds: [`s${turn}-${n}`], tools: 'read_file', dropped: false }));
    const turns: ContextTurn[] = Array.from({ length: 8_000 }, (_, index) => ({ number: index + 1, requestEntry: undefined, carried: false, restored: false, entries: [], entryIds: [`u${index}`], request: `request number ${index + 1} about the parser`, steps: steps(index + 1, index === 7_999 ? 500 : 2), dropped: false }));
    const listing = dropListing(turns);
    expect(listing.length).toBeLessThan(16_000);
    expect(listing).toContain('8000. request number 8000');
    const earlier = /… and ([\d,]+) more earlier turns \(1–(\d+);/.exec(listing);
    expect(earlier).not.toBeNull();
    const shown = listing.split('\n').filter((line) => /^\d+\. request number/.test(line)).length;
    expect(Number((earlier?.[1] ?? '').replace(/,/g, '')) + shown).toBe(8_000);
    expect(Number(earlier?.[2]) + shown).toBe(8_000);
    // The last turn's 500 steps: the newest STEP_LIMIT, and the count of the rest.
    expect(listing).toContain(`… and ${500 - STEP_LIMIT} more earlier tool steps (from 8000.1), 8000.${500 - STEP_LIMIT + 1} read_file`);
    expect(listing).toContain('8000.500 read_file');

    const views = toTurnViews(turns);
    expect(views.length + views.omitted).toBe(8_000);
    expect(views.at(-1)?.steps).toHaveLength(STEP_LIMIT);
    expect(views.at(-1)?.stepsOmitted).toBe(500 - STEP_LIMIT);
    expect(views.at(-2)?.stepsOmitted).toBeUndefined();
  });

  it("the panel's history keeps the newest compactions, checkpoints, sub-tasks and pins, and counts the older ones", () => {
    const builder = new PathBuilder();
    for (let turn = 0; turn < 2_000; turn++) {
      builder.user(`u${turn}`, `request ${turn}`);
      builder.assistant(`a${turn}`, [`c${turn}`], `answer ${turn}`);
      const result = builder.tool(`t${turn}`, `c${turn}`, 'sub-task answer');
      result.subagent = { sessionId: `child${turn}`, calls: 1, promptTokens: 10, completionTokens: 5 };
      builder.pin(`p${turn}`, `u${turn}`);
      if (turn % 2 === 1) builder.compaction(`k${turn}`, `u${turn}`);
    }
    const history = toHistoryView(builder.path());
    expect(history.compactions.length + (history.omitted?.compactions ?? 0)).toBe(1_000);
    expect(history.compactions.at(-1)?.id).toBe('k1999');
    expect((history.checkpoints?.length ?? 0) + (history.omitted?.checkpoints ?? 0)).toBe(2_000);
    expect((history.subtasks?.length ?? 0) + (history.omitted?.subtasks ?? 0)).toBe(2_000);
    expect(history.subtasks?.[0]?.sessionId).toBe('child1999');
    expect(history.pins.length + (history.omitted?.pins ?? 0)).toBe(2_000);
    expect(history.pins.at(-1)?.entryId).toBe('u1999');
    expect(JSON.stringify(history).length).toBeLessThan(40_000);
    // A short session lists everything and says nothing is left out.
    const short = new PathBuilder();
    short.user('u0');
    short.compaction('k0', 'u0');
    expect(toHistoryView(short.path()).omitted).toBeUndefined();
  });

  it('boundList keeps a contiguous run from the kept end within both bounds', () => {
    const items = ['aaaa', 'bb', 'cccccc', 'd', 'ee'];
    expect([...boundList(items, { maxItems: 10, maxChars: 3, keep: 'last' })]).toEqual(['d', 'ee']);
    expect(boundList(items, { maxItems: 10, maxChars: 3, keep: 'last' }).omitted).toBe(3);
    expect([...boundList(items, { maxItems: 2, keep: 'first' })]).toEqual(['aaaa', 'bb']);
    // One item larger than the character bound is still shown (a list is never empty when there is something).
    expect([...boundList(['x'.repeat(50)], { maxItems: 5, maxChars: 10, keep: 'last' })]).toHaveLength(1);
    expect(boundList([], { maxItems: 5, keep: 'last' }).omitted).toBe(0);
  });

  it('contextTurns of a long session feed the bounded views unchanged', () => {
    const path = droppedTurns(50).path();
    const turns = contextTurns(path);
    expect(turns).toHaveLength(52);
    const views = toTurnViews(turns);
    expect(views).toHaveLength(30);
    expect(views.omitted).toBe(22);
    expect(views[0]?.number).toBe(23);
  });
});
