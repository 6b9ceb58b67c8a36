// The context builder on the seeds' worked examples, pruning, pinning and provider-shape repair.
import { describe, expect, it } from 'vitest';
import { buildContext, CANCELLED_RESULT, SUMMARY_PREFIX } from '../../src/core/context/contextBuilder';
import type { ChatMessage } from '../../src/core/context/chatMessage';
import type { SessionEntry } from '../../src/core/session/entries';
import { validateEntry } from '../../src/core/session/entryValidation';
import { PathBuilder } from '../support/sessionPathBuilder';
import { validateChatMessages } from '../support/validateChatMessages';

/** Short labels of messages: user/assistant by their text "text of X" → X, tool results by id, summary → S(...). */
function labels(messages: ChatMessage[]): string[] {
  return messages.map((message) => {
    if (message.role === 'tool') return message.content.startsWith('output of ') ? message.content.slice(10) : message.content;
    const content = message.content ?? '';
    if (content.startsWith(SUMMARY_PREFIX)) return `S(${/<summary>\n(.*)\n<\/summary>/s.exec(content)?.[1] ?? ''})`;
    return content.startsWith('text of ') ? content.slice(8) : content;
  });
}

/** u1, a1, t1, t1, a1, u2, a2, u3, a3, t3, a3, t3, a3, u4, a4, t4, a4 from the pi research notes. */
function seedSession(): PathBuilder {
  const b = new PathBuilder();
  b.user('u1');
  b.assistant('a1', ['c1', 'c2']);
  b.tool('t1', 'c1');
  b.tool('t1b', 'c2');
  b.assistant('a1b');
  b.user('u2');
  b.assistant('a2');
  b.user('u3');
  b.assistant('a3', ['c3']);
  b.tool('t3', 'c3');
  b.assistant('a3b', ['c3b']);
  b.tool('t3b', 'c3b');
  b.assistant('a3c');
  b.user('u4');
  b.assistant('a4', ['c4']);
  b.tool('t4', 'c4');
  b.assistant('a4b');
  return b;
}

describe('buildContext on the seed examples', () => {
  it('without compaction sends the whole path, valid for a provider', () => {
    const b = seedSession();
    const { messages, compactionId } = buildContext(b.path());
    expect(compactionId).toBeNull();
    expect(labels(messages)).toEqual(['u1', 'a1', 't1', 't1b', 'a1b', 'u2', 'a2', 'u3', 'a3', 't3', 'a3b', 't3b', 'a3c', 'u4', 'a4', 't4', 'a4b']);
    expect(validateChatMessages(messages)).toEqual([]);
  });

  it('single compaction: summary, then the kept tail, then later messages', () => {
    const b = seedSession();
    b.compaction('c', 'u4', 'one');
    expect(labels(buildContext(b.path()).messages)).toEqual(['S(one)', 'u4', 'a4', 't4', 'a4b']);
    b.user('u5');
    b.assistant('a5');
    const built = buildContext(b.path(), { systemPrompt: 'sys' });
    expect(labels(built.messages)).toEqual(['sys', 'S(one)', 'u4', 'a4', 't4', 'a4b', 'u5', 'a5']);
    expect(built.messages[1]).toMatchObject({ role: 'user' });
    expect(built.items.map((item) => item.kind)).toEqual(['system', 'summary', 'entry', 'entry', 'entry', 'entry', 'entry', 'entry']);
    expect(built.compactionId).toBe('c');
    built.items.forEach((item, i) => expect(item.message).toBe(built.messages[i]));
  });

  it('two compactions: only the latest summary and its kept entries', () => {
    const b = seedSession();
    b.compaction('c1', 'u4', 'one');
    b.user('u5');
    b.assistant('a5');
    b.user('u6');
    b.assistant('a6', ['c6']);
    b.tool('t6', 'c6');
    b.assistant('a6b');
    b.user('u7');
    b.assistant('a7');
    b.compaction('c2', 'u6', 'two');
    const built = buildContext(b.path());
    expect(labels(built.messages)).toEqual(['S(two)', 'u6', 'a6', 't6', 'a6b', 'u7', 'a7']);
    expect(built.compactionId).toBe('c2');
  });

  it('branching after a compaction keeps the summary; before it undoes it', () => {
    const b = new PathBuilder();
    b.user('u1');
    b.assistant('a1');
    b.user('u2');
    b.assistant('a2');
    b.compaction('c', 'u2');
    b.user('u3');
    b.assistant('a3');
    // Branch at u3: the new leaf is u3's parent (the compaction).
    expect(labels(buildContext(b.path('c')).messages)).toEqual(['S(summary c)', 'u2', 'a2']);
    b.at('c').user('u3x');
    expect(labels(buildContext(b.path()).messages)).toEqual(['S(summary c)', 'u2', 'a2', 'u3x']);
    // Branch at u2: the leaf is a1, no compaction on the path.
    expect(labels(buildContext(b.path('a1')).messages)).toEqual(['u1', 'a1']);
    // Restoring before the compaction gives the pre-compaction context exactly.
    expect(buildContext(b.path('a2'))).toEqual(buildContext(b.path('a2')));
    expect(labels(buildContext(b.path('a2')).messages)).toEqual(['u1', 'a1', 'u2', 'a2']);
  });

  it('puts the turn-prefix summary under its own heading and handles a null firstKeptEntryId', () => {
    const b = new PathBuilder();
    b.user('u1');
    b.assistant('a1');
    b.compaction('c', null, 'all', { turnPrefixSummary: 'the user asked for X' });
    const [summary, ...rest] = buildContext(b.path()).messages;
    expect(rest).toEqual([]);
    expect(summary?.content).toContain('## Earlier steps of the current turn\n\nthe user asked for X');
  });
});

describe('pruning and pinning', () => {
  it('replaces pruned outputs on the path by a placeholder naming tool, size and entry id', () => {
    const b = new PathBuilder();
    b.user('u1');
    b.assistant('a1', ['c1']);
    b.tool('t1', 'c1', 'x'.repeat(5000));
    b.prune('p', ['t1']);
    const built = buildContext(b.path());
    const item = built.items[2];
    expect(item).toMatchObject({ kind: 'placeholder', pruned: true, entryId: 't1' });
    expect(item?.message.content).toContain('read_file');
    expect(item?.message.content).toContain('5000 chars');
    expect(item?.message.content).toContain('read_stored_output with entryId "t1"');
    // On a sibling branch without the prune entry the output is intact.
    expect(buildContext(b.path('t1')).messages[2]?.content).toBe('x'.repeat(5000));
  });

  it('re-inserts pinned messages right after the summary, in order, with whole tool exchanges; last pin wins', () => {
    const b = new PathBuilder();
    b.user('u1', 'keep this rule');
    b.assistant('a1', ['c1']);
    b.tool('t1', 'c1');
    b.user('u2');
    b.assistant('a2');
    b.user('u3');
    b.pin('p1', 'u1');
    b.pin('p2', 't1');
    b.pin('p3', 'u2');
    b.pin('p4', 'u2', false);
    b.compaction('c', 'u3');
    const built = buildContext(b.path());
    expect(labels(built.messages)).toEqual(['S(summary c)', 'keep this rule', 'a1', 't1', 'u3']);
    expect(built.items.map((item) => item.kind)).toEqual(['summary', 'pinned', 'pinned', 'pinned', 'entry']);
    expect(validateChatMessages(built.messages)).toEqual([]);
  });

  it('does not duplicate a pinned message that is still kept', () => {
    const b = new PathBuilder();
    b.user('u1');
    b.user('u2');
    b.pin('p', 'u2');
    b.compaction('c', 'u2');
    expect(labels(buildContext(b.path()).messages)).toEqual(['S(summary c)', 'u2']);
  });
});

describe('provider-shape repair', () => {
  it('answers interrupted calls, drops orphaned results and empty assistants, orders results by call', () => {
    const b = new PathBuilder();
    b.user('u1');
    b.assistant('a1', ['c1', 'c2']);
    b.tool('t2', 'c2');
    b.user('u-steer');
    b.tool('t1', 'c1');
    b.assistant('empty', [], '', { stopReason: 'aborted' });
    b.tool('orphan', 'nobody');
    b.assistant('a2', ['c3'], '', { stopReason: 'aborted' });
    b.user('u2');
    b.user('u3');
    const built = buildContext(b.path());
    expect(labels(built.messages)).toEqual(['u1', 'a1', 't1', 't2', 'u-steer', '', CANCELLED_RESULT, 'u2', 'u3']);
    expect(built.messages[5]).toEqual({ role: 'assistant', content: null, tool_calls: [{ id: 'c3', type: 'function', function: { name: 'read_file', arguments: '{"path":"c3.ts"}' } }] });
    expect(built.items[6]).toMatchObject({ kind: 'synthetic', entryId: 'a2' });
    expect(validateChatMessages(built.messages)).toEqual([]);
  });

  it('drops results whose call was summarized away when the cut falls inside a turn', () => {
    const b = new PathBuilder();
    b.user('u1');
    b.assistant('a1', ['c1']);
    b.tool('t1', 'c1');
    b.assistant('a2');
    b.compaction('c', 't1');
    const built = buildContext(b.path());
    // The cut fell inside u1's turn: its request is carried (the summary's appendix only names it).
    expect(labels(built.messages)).toEqual(['S(summary c)', 'u1', 'a2']);
    expect(validateChatMessages(built.messages)).toEqual([]);
  });

  it('uses the developer role when asked', () => {
    expect(buildContext([], { systemPrompt: 'p', systemRole: 'developer' }).messages).toEqual([{ role: 'developer', content: 'p' }]);
  });
});

describe('carried request and pins by entry', () => {
  it('pin-with-reused-call-ids: a pinned result comes back with its own call, never another exchange with the same id', () => {
    const b = new PathBuilder();
    for (let turn = 0; turn < 4; turn++) {
      b.user(`u${turn}`);
      b.assistant(`a${turn}`, ['call_0']);
      b.tool(`t${turn}`, 'call_0', `output of turn ${turn}`);
      b.assistant(`f${turn}`);
    }
    b.pin('p', 't1');
    b.compaction('c', 'u3');
    const built = buildContext(b.path());
    expect(labels(built.messages)).toEqual(['S(summary c)', 'a1', 'turn 1', 'u3', 'a3', 'turn 3', 'f3']);
    expect(validateChatMessages(built.messages)).toEqual([]);
    // Pinning the assistant message brings exactly its own result.
    const c = new PathBuilder();
    for (let turn = 0; turn < 3; turn++) {
      c.user(`u${turn}`);
      c.assistant(`a${turn}`, ['call_0']);
      c.tool(`t${turn}`, 'call_0', `output of turn ${turn}`);
    }
    c.user('u3');
    c.pin('p', 'a0');
    c.compaction('c', 'u3');
    expect(labels(buildContext(c.path()).messages)).toEqual(['S(summary c)', 'a0', 'turn 0', 'u3']);
  });

  it('carries the open turn\'s request after the summary when a compaction cut into the turn, once', () => {
    const b = new PathBuilder();
    b.user('u1');
    b.assistant('a1');
    b.user('u2');
    b.assistant('a2', ['c2']);
    b.tool('t2', 'c2');
    b.assistant('a2b', ['c2b']);
    b.tool('t2b', 'c2b');
    b.compaction('c', 'a2b');
    expect(labels(buildContext(b.path()).messages)).toEqual(['S(summary c)', 'u2', 'a2b', 't2b']);
    b.assistant('a2c', ['c2c']);
    b.tool('t2c', 'c2c');
    b.compaction('d', 'a2c');
    expect(labels(buildContext(b.path()).messages)).toEqual(['S(summary d)', 'u2', 'a2c', 't2c']);
    // Once the turn is answered, its request stays while that compaction is the latest (the kept steps answer it).
    b.assistant('done');
    b.user('u3');
    expect(labels(buildContext(b.path()).messages)).toEqual(['S(summary d)', 'u2', 'a2c', 't2c', 'done', 'u3']);
    // A compaction that cuts at a turn start carries nothing.
    b.compaction('e', 'u3');
    expect(labels(buildContext(b.path()).messages)).toEqual(['S(summary e)', 'u3']);
  });

  it('reads the carried request the compaction recorded; a hand-edited one naming anything but an earlier request carries nothing', () => {
    const session = (carriedRequestId: unknown): SessionEntry[] => {
      const b = new PathBuilder();
      b.user('u1');
      b.assistant('a1');
      b.user('u2');
      b.assistant('a2', ['c2']);
      b.tool('t2', 'c2');
      b.assistant('a2b', ['c2b']);
      b.tool('t2b', 'c2b');
      const line = { ...b.compaction('c', 'a2b'), carriedRequestId };
      const checked = validateEntry(JSON.parse(JSON.stringify(line)));
      if ('error' in checked) throw new Error(checked.error);
      return [...b.path().slice(0, -1), checked.entry];
    };
    // Recorded by the plan: the split turn's request, or none.
    expect(labels(buildContext(session('u2')).messages)).toEqual(['S(summary c)', 'u2', 'a2b', 't2b']);
    expect(labels(buildContext(session(null)).messages)).toEqual(['S(summary c)', 'a2b', 't2b']);
    // An earlier request of another turn is what the person recorded: it is carried (once).
    expect(labels(buildContext(session('u1')).messages)).toEqual(['S(summary c)', 'u1', 'a2b', 't2b']);
    // An assistant message, a kept entry, an unknown id: nothing is carried and nothing is sent twice.
    expect(labels(buildContext(session('a1')).messages)).toEqual(['S(summary c)', 'a2b', 't2b']);
    expect(labels(buildContext(session('a2b')).messages)).toEqual(['S(summary c)', 'a2b', 't2b']);
    expect(labels(buildContext(session('nowhere')).messages)).toEqual(['S(summary c)', 'a2b', 't2b']);
    // A value of the wrong type is dropped when the line is read: the request is derived from the cut, as in older logs.
    expect(labels(buildContext(session(42)).messages)).toEqual(['S(summary c)', 'u2', 'a2b', 't2b']);
  });
});
