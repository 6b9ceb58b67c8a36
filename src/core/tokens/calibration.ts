// Learns, per model, how the endpoint's reported prompt tokens relate to our count, and corrects counts with it.

export interface CalibrationJSON {
  model: string;
  ratios: number[];
}

/** Ratios outside this range are not tokenizer drift but a broken report (aborted call, wrong model). */
const MIN_RATIO = 0.5;
const MAX_RATIO = 2.5;
/** Below this many tokens the fixed framing dominates and the ratio says little about the tokenizer. */
const MIN_COUNTED = 200;
/** The median over the last few reports: smooth, and one odd report cannot move it. */
const WINDOW = 9;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 1) : ((sorted[middle - 1] ?? 1) + (sorted[middle] ?? 1)) / 2;
}

/**
 * The ratio reported / counted for one model, as the median of the last WINDOW plausible reports.
 * For OpenAI models it stays near 1; for other models it absorbs the tokenizer difference.
 */
export class Calibration {
  private readonly ratios: number[] = [];

  constructor(readonly model: string) {}

  /** True once at least one usable report was observed; until then figures are estimates. */
  get calibrated(): boolean {
    return this.ratios.length > 0;
  }

  get ratio(): number {
    return this.ratios.length > 0 ? median(this.ratios) : 1;
  }

  /** Records one call: the prompt tokens the endpoint reported (cached included) and what we counted. */
  observe(reportedPrompt: number, countedPrompt: number): boolean {
    if (!Number.isFinite(reportedPrompt) || !Number.isFinite(countedPrompt)) return false;
    if (countedPrompt < MIN_COUNTED || reportedPrompt <= 0) return false;
    const ratio = reportedPrompt / countedPrompt;
    if (ratio < MIN_RATIO || ratio > MAX_RATIO) return false;
    this.ratios.push(ratio);
    if (this.ratios.length > WINDOW) this.ratios.shift();
    return true;
  }

  /** A count corrected by the learned ratio (unchanged before the first report). */
  apply(count: number): number {
    return Math.round(count * this.ratio);
  }

  toJSON(): CalibrationJSON {
    return { model: this.model, ratios: [...this.ratios] };
  }

  /** Restores a persisted calibration; implausible ratios are dropped, a wrong shape starts fresh. */
  static fromJSON(json: unknown, model: string): Calibration {
    const calibration = new Calibration(model);
    if (typeof json !== 'object' || json === null) return calibration;
    const record = json as { model?: unknown; ratios?: unknown };
    if (record.model !== model || !Array.isArray(record.ratios)) return calibration;
    for (const ratio of record.ratios.slice(-WINDOW)) {
      if (typeof ratio === 'number' && ratio >= MIN_RATIO && ratio <= MAX_RATIO) calibration.ratios.push(ratio);
    }
    return calibration;
  }
}
