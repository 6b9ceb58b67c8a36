// Our settings swept for the cost / need-retention frontier: summary size, when to compact, what to keep, whether to prune.
import { RULES } from '../src/core/budget/thresholds';
import { defaultSettings, type Settings } from '../src/core/settings/settings';

/** One swept configuration of our settings. */
export interface SweepPoint {
  key: string;
  label: string;
  settings: (window: number) => Settings;
}

/** A rule's value at a window with another fraction (and the same clamps), as thresholds.ts computes it. */
function scaled(rule: { fraction: number; min: number; max: number }, window: number, factor: number): number {
  return Math.round(Math.min(rule.max * factor, Math.max(rule.min, rule.fraction * factor * window)));
}

/** The label of a kept tail scaled by `factor`: its share of the window and its cap. */
function keepLabel(factor: number): string {
  return `ours, keep ${(RULES.keepRecent.fraction * factor * 100).toFixed(RULES.keepRecent.fraction * factor * 100 < 10 ? 2 : 1).replace(/\.?0+$/, '')} % (≤ ${Math.round((RULES.keepRecent.max * factor) / 1000)}k)`;
}

function withSettings(change: (settings: Settings, window: number) => void): (window: number) => Settings {
  return (window) => {
    const settings = defaultSettings();
    change(settings, window);
    return settings;
  };
}

/**
 * The swept points (each replays every workload at every window once more, several minutes each here). Summary sizes
 * above the length the prompt produces (bench/summaryLengths.ts) only leave room unused, so the sweep goes down.
 */
export const FULL_SWEEP: readonly SweepPoint[] = [
  { key: 'oursCacheUnaware', label: 'ours, not cache-aware', settings: withSettings((s) => (s.compaction.cacheLifetimeSeconds = 0)) },
  { key: 'oursKeep2x', label: keepLabel(2), settings: withSettings((s, w) => (s.compaction.keepRecentTokens = scaled(RULES.keepRecent, w, 2))) },
  { key: 'oursKeepHalf', label: keepLabel(0.5), settings: withSettings((s, w) => (s.compaction.keepRecentTokens = scaled(RULES.keepRecent, w, 0.5))) },
  { key: 'oursCompact75', label: 'ours, compact at 75 %', settings: withSettings((s) => (s.compaction.triggerPercent = 75)) },
  {
    key: 'oursKeepHalfNoPruning',
    label: `${keepLabel(0.5)}, no pruning`,
    settings: withSettings((s, w) => {
      s.compaction.keepRecentTokens = scaled(RULES.keepRecent, w, 0.5);
      s.pruning.enabled = false;
    }),
  },
  { key: 'oursKeep2xNoPruning', label: `${keepLabel(2)}, no pruning`, settings: withSettings((s, w) => { s.compaction.keepRecentTokens = scaled(RULES.keepRecent, w, 2); s.pruning.enabled = false; }) },
  { key: 'oursBigOutputs', label: 'ours, outputs up to 50 KB / 2,000 lines', settings: withSettings((s, w) => { s.tools.outputMaxChars = Math.max(4000, Math.min(51_200, Math.round(0.12 * w))); s.tools.outputMaxLines = 2000; }) },
  { key: 'oursSummary500', label: 'ours, summary 500', settings: withSettings((s) => (s.compaction.summaryTokens = 500)) },
  { key: 'oursSummary1000', label: 'ours, summary 1,000', settings: withSettings((s) => (s.compaction.summaryTokens = 1000)) },
  { key: 'oursNoPruning', label: 'ours, no pruning', settings: withSettings((s) => (s.pruning.enabled = false)) },
  { key: 'oursCompact60', label: 'ours, compact at 60 %', settings: withSettings((s) => (s.compaction.triggerPercent = 60)) },
  {
    key: 'oursCheapest',
    label: 'ours, compact at 50 %, keep ×0.5, no pruning',
    settings: withSettings((s, w) => {
      s.compaction.triggerPercent = 50;
      s.compaction.keepRecentTokens = scaled(RULES.keepRecent, w, 0.5);
      s.pruning.enabled = false;
    }),
  },
];

/**
 * What `npm run bench` sweeps: the candidates the defaults are chosen from in the leave-one-family-out table, each a
 * choice the defaults make (cache-aware, the kept tail both ways, pruning, when to compact); `--full-sweep` replays
 * every point above.
 */
export const FRONTIER_SWEEP: readonly SweepPoint[] = FULL_SWEEP.filter((point) => ['oursCacheUnaware', 'oursKeep2x', 'oursKeepHalf', 'oursNoPruning', 'oursKeepHalfNoPruning', 'oursCompact75', 'oursCompact60'].includes(point.key));

/** A sweep point's label by key, for the tables and the pictures. */
export const SWEEP_LABELS: Readonly<Record<string, string>> = Object.fromEntries(FULL_SWEEP.map((point) => [point.key, point.label]));
