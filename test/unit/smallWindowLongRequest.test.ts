// Scenario long-request-at-8k (issue 36): recorded sessions whose requests paste thousands of tokens of logs leave a compaction little to free at an 8k window; the request still runs to its end.
import * as nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { fittedTurns, folderWorkloads, PUBLIC_SESSIONS_DIR } from '../../bench/costWorkloads';
import { replayOurs } from '../../bench/ourReplay';
import { PrefixCache } from '../../bench/prefixCache';
import { shrinkProblem } from '../../src/core/compaction/cutPlan';
import { TokenCounter } from '../../src/core/tokens/tokenCounter';

describe('long-request-at-8k', () => {
  it('accepts a compaction that freed little when the context then fits, and refuses one that leaves it over', () => {
    expect(shrinkProblem(7_309, 6_657)).toMatch(/did not shrink/);
    expect(shrinkProblem(7_309, 6_657, 7_168)).toBeNull();
    expect(shrinkProblem(7_309, 7_200, 7_168)).toMatch(/did not shrink/);
  });

  it('runs every recorded step of a Cline task resumed with a 12,000-character request at an 8k window', async () => {
    const counter = await TokenCounter.create('gpt-4o');
    const [workload] = folderWorkloads(PUBLIC_SESSIONS_DIR, false).filter((w) => w.name === 'cline-python-perplexica-28');
    expect(workload, `cline-python-perplexica-28 in ${nodePath.basename(PUBLIC_SESSIONS_DIR)}`).toBeDefined();
    const turns = fittedTurns(workload?.turns ?? [], 8_192, counter);
    const run = await replayOurs(turns, 8_192, counter, new PrefixCache(counter));
    expect(run.errors).toEqual([]);
    expect(run.dropped).toEqual([]);
    expect(run.compactions).toBeGreaterThan(0);
    expect(run.refusals).toBe(0);
  }, 120_000);
});
