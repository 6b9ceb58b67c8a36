// One benchmark figure with its target, and how the rows are printed as a table or as one JSON object.

export interface BenchRow {
  /** Stable key in the JSON output, e.g. "accounting.overheadRatio". */
  key: string;
  /** What is measured, one short phrase. */
  label: string;
  /** The figure: a ratio or a count taken within one run (null when it could not be measured). */
  value: number | null;
  /** How the figure reads, e.g. "×", "ms", "%", "bytes". */
  unit: string;
  /** The target in words (e.g. "≤ 1.15"), or "" for context-only rows. */
  target: string;
  /** Whether the target was met; null for context-only rows or when not measured. */
  met: boolean | null;
  /** Absolute medians and other context for the figure. */
  detail: string;
  /** Shown in its family's own section of BENCHMARKS.md rather than in the main table (still in the JSON and the count). */
  section?: boolean;
}

/** A file a family draws from its run (a picture), written by `--write` beside BENCHMARKS.md. */
export interface BenchPicture {
  /** Relative to the repository root. */
  file: string;
  content: string;
}

/**
 * What one family of benchmarks contributes to a run and to BENCHMARKS.md: its rows, the paragraph of "What limits
 * each row" with this run's figures in it, an optional section of its own, and pictures.
 */
export interface FamilyResult {
  rows: BenchRow[];
  limits?: () => string;
  section?: () => string;
  pictures?: () => BenchPicture[];
}

/** A step's answer as a family (older steps return bare rows). */
export function asFamily(result: BenchRow[] | FamilyResult): FamilyResult {
  return Array.isArray(result) ? { rows: result } : result;
}

/** Rows that name a target: met only when measured and `met` is true. */
export function targetRows(rows: readonly BenchRow[]): BenchRow[] {
  return rows.filter((r) => r.target !== '');
}

/** "N of M targets met" (and which were not). */
export function targetLine(rows: readonly BenchRow[]): { met: number; total: number; missed: BenchRow[]; line: string } {
  const targets = targetRows(rows);
  const missed = targets.filter((r) => r.met !== true);
  const met = targets.length - missed.length;
  return { met, total: targets.length, missed, line: `${met} of ${targets.length} targets met` };
}

export function row(fields: Omit<BenchRow, 'met'> & { met?: boolean | null }): BenchRow {
  return { ...fields, met: fields.value === null ? null : (fields.met ?? null) };
}

export function formatNumber(value: number | null, unit: string): string {
  if (value === null || !Number.isFinite(value)) return 'n/a';
  const abs = Math.abs(value);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  const text = value.toFixed(digits);
  if (unit === '×') return `${text}×`;
  if (unit === '') return text;
  return `${text} ${unit}`;
}

function metText(met: boolean | null): string {
  if (met === null) return '';
  return met ? 'met' : 'NOT met';
}

/** A plain-text table; widths follow the content (the detail column is last and free-form). */
export function formatTable(rows: readonly BenchRow[]): string {
  const cells = rows.map((r) => [r.label, formatNumber(r.value, r.unit), r.target, metText(r.met), r.detail]);
  const header = ['measure', 'figure', 'target', 'met?', 'absolute / context'];
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length)));
  const line = (c: readonly string[]): string =>
    c.map((text, i) => (i === c.length - 1 ? text : text.padEnd(widths[i] ?? 0))).join(' | ');
  return [line(header), widths.map((w, i) => '-'.repeat(i === widths.length - 1 ? Math.min(w, 40) : w)).join('-|-'), ...cells.map(line)].join('\n');
}

/** A Markdown table of the same rows (for BENCHMARKS.md). */
export function formatMarkdown(rows: readonly BenchRow[]): string {
  const escape = (text: string): string => text.replace(/\|/g, '\\|');
  const lines = ['| measure | figure | target | met? | absolute / context |', '| --- | --- | --- | --- | --- |'];
  for (const r of rows) {
    lines.push(`| ${escape(r.label)} | ${escape(formatNumber(r.value, r.unit))} | ${escape(r.target)} | ${metText(r.met)} | ${escape(r.detail)} |`);
  }
  return lines.join('\n');
}

export function ms(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  if (value < 1) return `${(value * 1000).toFixed(0)} µs`;
  return `${value < 10 ? value.toFixed(2) : value.toFixed(1)} ms`;
}

/** A row's figure as printed in the table (value with its unit), for the families' "what limits" text. */
export function figureOf(rows: readonly BenchRow[]): (key: string) => string {
  return (key) => {
    const found = rows.find((r) => r.key === key);
    return found ? formatNumber(found.value, found.unit) : 'n/a';
  };
}

/** "met", "NOT met" or "no target" for a row, for the families' "what limits" text. */
export function verdictOf(rows: readonly BenchRow[]): (key: string) => string {
  return (key) => {
    const found = rows.find((r) => r.key === key);
    if (!found || found.target === '') return 'no target';
    return found.met === true ? 'met' : 'NOT met';
  };
}
