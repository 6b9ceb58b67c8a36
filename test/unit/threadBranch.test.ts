// An edited or removed request in the chat thread branches the session there; other leaf moves are left alone.
import { describe, expect, it } from 'vitest';
import type { SessionEntry } from '../../src/core/session/entries';
import { threadBranchPoint } from '../../src/core/session/threadBranch';

function chain(fields: Array<Record<string, unknown>>): SessionEntry[] {
  let parentId: string | null = null;
  return fields.map((entry, index) => {
    const full = { id: `e${index}`, parentId, timestamp: '2026-01-01T00:00:00.000Z', ...entry } as unknown as SessionEntry;
    parentId = full.id;
    return full;
  });
}

const turn = (text: string): Array<Record<string, unknown>> => [
  { type: 'user', text },
  { type: 'assistant', text: `answer to ${text}`, toolCalls: [] },
];

describe('following the chat thread', () => {
  it('edited-request-branches-the-session-where-the-thread-now-ends', () => {
    const path = chain([...turn('one'), ...turn('two'), ...turn('three')]);
    // The thread's newest reply is the answer to "one" (e1): "two" and "three" were edited away.
    expect(threadBranchPoint(path, 'e1')).toEqual({ leafId: 'e1', dropped: 2 });
  });

  it('a-thread-that-shows-everything-changes-nothing', () => {
    const path = chain([...turn('one'), ...turn('two')]);
    expect(threadBranchPoint(path, 'e3')).toBeUndefined();
  });

  it('a-compaction-or-prune-after-the-last-reply-is-not-an-edit', () => {
    const path = chain([
      ...turn('one'),
      { type: 'compaction', summary: 's', firstKeptEntryId: null, tokensBefore: 2, tokensAfter: 1, files: { read: [], modified: [] }, edited: false, auto: false },
      { type: 'user', text: 'continue', synthetic: true },
    ]);
    expect(threadBranchPoint(path, 'e1')).toBeUndefined();
  });

  it('a-restored-branch-that-no-longer-holds-the-reply-is-left-alone', () => {
    const path = chain([...turn('one')]);
    expect(threadBranchPoint(path, 'not-on-this-branch')).toBeUndefined();
  });
});
