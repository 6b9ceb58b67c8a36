// A request that fails keeps its turn: the leaf it names is where the next message continues, not a branch point.
import { describe, expect, it } from 'vitest';
import { runAgent } from '../../src/core/agent/agentLoop';
import { threadBranchPoint } from '../../src/core/session/threadBranch';
import { collect, scriptedModel } from '../support/agentFakes';
import { baseAgentOptions, useAgentFixture } from '../support/agentFixture';

const fixture = useAgentFixture();

describe('a failed request', () => {
  it('failed-request-keeps-its-turn', async () => {
    fixture.ws.write('notes.md', 'first draft\n');
    const first = scriptedModel([{ text: 'The notes say "first draft".' }]);
    await collect(runAgent({ ...baseAgentOptions(fixture, first), userText: 'What do the notes say?' }));
    const leafAfterFirst = fixture.session.log.leafId;
    if (!leafAfterFirst) throw new Error('the first request left no leaf');

    // The second request writes a file, then the server fails for good.
    const failing = scriptedModel([
      { toolCalls: [{ name: 'write_file', args: { path: 'notes.md', content: 'second draft\n' } }] },
      { error: { kind: 'server', message: 'HTTP 500: upstream exploded', retryable: false } },
    ]);
    const events = await collect(runAgent({ ...baseAgentOptions(fixture, failing), userText: 'Rewrite the notes as a second draft.' }));
    expect(events.some((event) => event.type === 'done' && event.reason !== 'finished') || events.some((event) => event.type === 'error')).toBe(true);

    // The chat result of the failed request names the session's leaf now (what chatParticipant returns on failure).
    const leafAfterFailure = fixture.session.log.leafId;
    if (!leafAfterFailure) throw new Error('the failed request left no leaf');
    const path = fixture.session.log.path();
    expect(path.some((entry) => entry.type === 'user' && entry.text === 'Rewrite the notes as a second draft.')).toBe(true);
    expect(path.some((entry) => entry.type === 'toolResult' && entry.toolName === 'write_file' && !entry.isError)).toBe(true);

    // The next message follows the thread from that leaf: nothing was edited away, so the session does not branch.
    expect(threadBranchPoint(path, leafAfterFailure)).toBeUndefined();
    // Had the failed request named no leaf, the thread would end at the first reply and the failed turn (with its
    // write) would be taken for an edit: one request dropped. This is the bug the leaf in every result prevents.
    expect(threadBranchPoint(path, leafAfterFirst)).toEqual({ leafId: leafAfterFirst, dropped: 1 });
  });
});
