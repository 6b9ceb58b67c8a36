// `npm run bench -- --only=cost --cost-tune`: our policy replayed with alternative defaults, to see which would make it cheaper.
import { RULES } from '../src/core/budget/thresholds';
import { defaultSettings, type Settings } from '../src/core/settings/settings';
import { COST_WINDOWS, runCostReplay } from './costBench';
import type { CostWorkload } from './costWorkloads';
import { pooledShare } from './retention';

interface Alternative {
  name: string;
  settings: (window: number) => Settings;
}

/** A rule's value at a window with another fraction (and, optionally, another maximum), clamped as thresholds.ts clamps. */
function scaled(rule: { fraction: number; min: number; max: number }, window: number, factor: number, max = rule.max * factor): number {
  return Math.round(Math.min(max, Math.max(rule.min, rule.fraction * factor * window)));
}

function withSettings(change: (settings: Settings, window: number) => void): (window: number) => Settings {
  return (window) => {
    const settings = defaultSettings();
    change(settings, window);
    return settings;
  };
}

/** Compaction earlier than the usable budget: compaction.triggerPercent. */
function compactAt(percent: number, change: (settings: Settings, window: number) => void = () => undefined): (window: number) => Settings {
  return withSettings((settings, window) => {
    settings.compaction.triggerPercent = percent;
    change(settings, window);
  });
}

/** Cheapest combination found: compact at half the usable budget, keep half as much, never prune. */
const CHEAPEST = compactAt(50, (s, w) => {
  s.compaction.keepRecentTokens = scaled(RULES.keepRecent, w, 0.5);
  s.pruning.enabled = false;
});

export const ALTERNATIVES: readonly Alternative[] = [
  { name: 'defaults', settings: () => defaultSettings() },
  { name: 'no pruning', settings: withSettings((s) => (s.pruning.enabled = false)) },
  { name: 'prune minimum ×2', settings: withSettings((s, w) => (s.pruning.minimumTokens = scaled(RULES.pruneMinimum, w, 2))) },
  { name: 'prune protect ×0.5', settings: withSettings((s, w) => (s.pruning.protectTokens = scaled(RULES.pruneProtect, w, 0.5))) },
  { name: 'keep recent ×0.5', settings: withSettings((s, w) => (s.compaction.keepRecentTokens = scaled(RULES.keepRecent, w, 0.5))) },
  { name: 'compact at 75 %', settings: compactAt(75) },
  { name: 'compact at 60 %', settings: compactAt(60) },
  { name: 'compact at 50 %', settings: compactAt(50) },
  { name: 'compact at 50 %, keep recent ×0.5, no pruning', settings: CHEAPEST },
];

/** One line per alternative: cost, prompt tokens, cached share, summary calls and file retention at each window. */
export async function costTuning(options: { quick: boolean; log: (text: string) => void; workloads?: CostWorkload[]; only?: string }): Promise<string> {
  const lines: string[] = [`| alternative | ${COST_WINDOWS.map((w) => w.label).join(' | ')} |`, `| --- | ${COST_WINDOWS.map(() => '---').join(' | ')} |`];
  for (const alternative of ALTERNATIVES) {
    if (options.only && !alternative.name.includes(options.only)) continue;
    options.log(`bench: cost tuning: ${alternative.name}...`);
    const run = await runCostReplay({ quick: options.quick, settings: alternative.settings, oursOnly: true, ...(options.workloads ? { workloads: options.workloads } : {}) });
    const cells = Object.values(run.bills).map(({ ours }) => {
      if (!ours) return 'n/a';
      const files = pooledShare(ours.retention, (s) => [s.files]);
      const requests = pooledShare(ours.retention, (s) => [s.requests]);
      const cached = ours.promptTokens > 0 ? (100 * ours.cachedTokens) / ours.promptTokens : 0;
      return `$${ours.cost.toFixed(2)}: ${(ours.promptTokens / 1e6).toFixed(1)} M sent, ${cached.toFixed(0)} % cached, ${ours.summaryCalls} summary calls, files kept ${files === null ? 'n/a' : `${Math.round(files * 100)} %`}, requests ${requests === null ? 'n/a' : `${Math.round(requests * 100)} %`}${ours.errors > 0 ? `, ${ours.errors} errors` : ''}`;
    });
    lines.push(`| ${alternative.name} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}
