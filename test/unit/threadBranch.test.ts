// An edited or removed request in the chat thread branches the session there; other leaf moves are left alone.
import { describe, expect, it } from 'vitest';
import { threadBranchPoint } from '../../src/core/session/threadBranch';
import { chainEntries } from '../support/sessionPathBuilder';

const turn = (text: string): Array<Record<string, unknown>> => [
  { type: 'user', text },
  { type: 'assistant', text: `answer to ${text}`, toolCalls: [] },
];

describe('following the chat thread', () => {
  it('edited-request-branches-the-session-where-the-thread-now-ends', () => {
    const path = chainEntries([...turn('one'), ...turn('two'), ...turn('three')]);
    // The thread's newest reply is the answer to "one" (e1): "two" and "three" were edited away.
    expect(threadBranchPoint(path, 'e1')).toEqual({ leafId: 'e1', dropped: 2 });
  });

  it('a-thread-that-shows-everything-changes-nothing', () => {
    const path = chainEntries([...turn('one'), ...turn('two')]);
    expect(threadBranchPoint(path, 'e3')).toBeUndefined();
  });

  it('a-compaction-or-prune-after-the-last-reply-is-not-an-edit', () => {
    const path = chainEntries([
      ...turn('one'),
      { type: 'compaction', summary: 's', firstKeptEntryId: null, tokensBefore: 2, tokensAfter: 1, files: { read: [], modified: [] }, edited: false, auto: false },
      { type: 'user', text: 'continue', synthetic: true },
    ]);
    expect(threadBranchPoint(path, 'e1')).toBeUndefined();
  });

  it('a-restored-branch-that-no-longer-holds-the-reply-is-left-alone', () => {
    const path = chainEntries([...turn('one')]);
    expect(threadBranchPoint(path, 'not-on-this-branch')).toBeUndefined();
  });
});
