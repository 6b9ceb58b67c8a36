// A cold count after a compaction tokenizes only what the context sends, and the summary once per compaction, ever.
import { describe, expect, it, vi } from 'vitest';
import { measureContext } from '../../src/core/budget/meter';
import { buildContext } from '../../src/core/context/contextBuilder';
import { defaultSettings } from '../../src/core/settings/settings';
import { CountCache } from '../../src/core/tokens/countCache';
import { TokenCounter } from '../../src/core/tokens/tokenCounter';
import { PathBuilder } from '../support/sessionPathBuilder';

function compactedSession(): PathBuilder {
  const builder = new PathBuilder();
  for (let turn = 0; turn < 30; turn++) {
    builder.user(`u${turn}`, `request ${turn} ${'word '.repeat(40)}`);
    builder.assistant(`a${turn}`, [`c${turn}`]);
    builder.tool(`t${turn}`, `c${turn}`, `output ${turn} ${'line of output\n'.repeat(60)}`);
  }
  builder.compaction('k1', 'u27', 'what happened in turns 0 to 26');
  builder.user('u30', 'and now?');
  return builder;
}

describe('counting after a compaction', () => {
  it('tokenizes only the messages the context sends, and the summary once', async () => {
    const counter = await TokenCounter.create('gpt-4o');
    const path = compactedSession().path();
    const cache = new CountCache();
    const spy = vi.spyOn(counter, 'countMessageParts');
    const deps = { counter, cache, settings: defaultSettings(), contextWindow: 200_000, systemRole: 'system' as const, tools: [] };
    const measured = measureContext(path, deps);
    // Sent: the summary and the 10 messages from u27 on; the 81 summarized messages are never tokenized.
    const sent = buildContext(path).messages.length;
    expect(sent).toBe(11);
    expect(spy.mock.calls.length).toBe(sent);
    expect(spy.mock.calls.filter(([role, content]) => role === 'user' && String(content).includes('what happened in turns 0 to 26'))).toHaveLength(1);
    spy.mockClear();
    const again = measureContext(path, deps);
    expect(spy).not.toHaveBeenCalled();
    expect(again.budget).toEqual(measured.budget);
    // A warm open (the cache persisted and restored) tokenizes nothing at all, summary included.
    const restored = CountCache.fromJSON(JSON.parse(JSON.stringify(cache.toJSON())));
    const reopened = measureContext(compactedSession().path(), { ...deps, cache: restored });
    expect(spy).not.toHaveBeenCalled();
    expect(reopened.budget.used).toBe(measured.budget.used);
  });
});
