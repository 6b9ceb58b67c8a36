// Learns, per model, how the endpoint's reported prompt tokens relate to our counts: one ratio for content, one for tool definitions.
import { WINDOW_BOUNDS } from '../llm/contextWindow';

/** One model call: what the endpoint reported and what we counted for the same prompt (raw, uncalibrated). */
export interface PromptObservation {
  reported: number;
  /** Everything but the tool definitions: system prompt, summary, messages, tool results, framing. */
  content: number;
  /** The tool definitions, counted the way OpenAI renders them. */
  tools: number;
}

/**
 * `truncated`: the server kept only `kept` tokens of a longer prompt (it dropped the oldest messages to fit
 * its window): evidence of a smaller window, never a calibration sample.
 */
export type ReportVerdict = { believed: true } | { believed: false; reason: string; truncated?: { kept: number } };

/** What is known of the server beyond the model's window. */
export interface ReportContext {
  /** The server drops the oldest messages of a prompt longer than its window instead of refusing it (Ollama). */
  truncates?: boolean;
}

export interface CalibrationJSON {
  version: 2;
  model: string;
  observations: Array<[number, number, number]>;
}

/** Below this many counted tokens the fixed framing dominates and a report says little. */
const MIN_COUNTED = 200;
/**
 * No tokenizer in use today counts the same text at less than 0.4× or more than 3× of o200k: a report
 * outside that is a different prompt (a server that silently truncated, as Ollama does at num_ctx, or
 * one that counted something else). Such a report is neither believed for the meter nor learned from.
 */
const LOW = 0.4;
const HIGH = 3;
/** Tool definitions rendered by a server's chat template cost between these multiples of OpenAI's rendering. */
const TOOLS_LOW = 0.3;
/**
 * A report this far below our count is a shortened prompt on a server known to truncate, or on any server
 * when it also fills the window: no tokenizer in use counts the same text at less than 0.8× of o200k
 * (servers render tool schemas larger, never smaller), so 4,090 for a prompt we count at 6,800 is not a
 * tokenizer difference.
 */
const TRUNCATED_BELOW = 0.8;
/** A report at least this share of the window "fills" it. */
const FILLS_WINDOW = 0.9;
const TOOLS_HIGH = 5;
/** Fewest tokens a truncating server keeps that can be its window (the smallest window any source may give). */
const MIN_KEPT = WINDOW_BOUNDS.min;
const KEPT = 16;

function tokens(value: number): string {
  return value.toLocaleString('en-US');
}

/** Whether a reported prompt size can be the prompt we counted (`window`: the model's window, when known). */
export function judgeReport(reported: number, counted: number, window?: number, context: ReportContext = {}): ReportVerdict {
  if (!Number.isFinite(reported) || reported <= 0) return { believed: false, reason: 'no usable prompt token count' };
  if (window !== undefined && window > 0 && reported > window) {
    return { believed: false, reason: `${tokens(reported)} prompt tokens is more than the ${tokens(window)}-token window` };
  }
  if (!Number.isFinite(counted) || counted < MIN_COUNTED) return { believed: true };
  const short = reported < counted * TRUNCATED_BELOW;
  const fillsWindow = window !== undefined && window > 0 && reported >= window * FILLS_WINDOW;
  // A prompt that takes the whole window leaves no room for any reply: with ours counted above the window, the server
  // cut it to fit, however small the cut (SGLang --allow-auto-truncate keeps 8,191 of 9,000 at 8,192).
  const fillsWhole = window !== undefined && window > 0 && reported >= window - 1;
  const filledExactly = fillsWhole && counted > window;
  // A kept prompt smaller than any window is no window's worth (KoboldCpp reports a fixed 100 prompt tokens).
  const keptAWindow = reported >= MIN_KEPT;
  if (keptAWindow && (filledExactly || (short && (context.truncates === true || fillsWindow)))) {
    return {
      believed: false,
      reason: `the server kept ${tokens(reported)} tokens of a prompt we count at ${tokens(counted)}: it cut the prompt to fit a smaller window than assumed`,
      truncated: { kept: Math.floor(reported) },
    };
  }
  if (fillsWhole) {
    return { believed: false, reason: `${tokens(reported)} prompt tokens fill the ${tokens(window ?? 0)}-token window, leaving no room for a reply: the server may have cut the prompt to fit` };
  }
  if (reported < counted * LOW) {
    return {
      believed: false,
      reason: `${tokens(reported)} prompt tokens for a prompt we count at ${tokens(counted)}: the server may have truncated it, so its window may be smaller than assumed`,
    };
  }
  if (reported > counted * HIGH) return { believed: false, reason: `${tokens(reported)} prompt tokens for a prompt we count at ${tokens(counted)}` };
  return { believed: true };
}

function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/**
 * The endpoint's prompt size is modelled as contentRatio × content + toolsRatio × tools. Tool definitions
 * get their own ratio because servers render them very differently (OpenAI as a compact namespace, many
 * chat templates as raw JSON schemas, 1.3–2× larger), while the tool set rarely changes within a session.
 * contentRatio comes from consecutive calls with the same tools: the difference in reported tokens over
 * the difference in content cancels the tools out entirely. toolsRatio is what remains of each report.
 * Both are medians over the last 16 calls, so one odd report cannot move them.
 */
export class Calibration {
  private readonly observations: PromptObservation[] = [];
  private cached: { content: number | undefined; tools: number | undefined } | undefined;

  constructor(
    readonly model: string,
    /** Used for content until the first samples arrive (1: our tokenizer is right until shown otherwise). */
    private readonly priorContent = 1,
  ) {}

  /** Records one call when its report is believable; returns the verdict so the caller can say why not. */
  observe(observation: PromptObservation, window?: number, context: ReportContext = {}): ReportVerdict {
    const verdict = judgeReport(observation.reported, observation.content + observation.tools, window, context);
    if (!verdict.believed) return verdict;
    if (!Number.isFinite(observation.content) || !Number.isFinite(observation.tools) || observation.content < 0 || observation.tools < 0) {
      return { believed: false, reason: 'the counted prompt is not a number' };
    }
    this.observations.push({ ...observation });
    if (this.observations.length > KEPT) this.observations.shift();
    this.cached = undefined;
    return verdict;
  }

  /** True once a report has taught us the content ratio; until then figures are estimates. */
  get calibrated(): boolean {
    return this.estimate().content !== undefined;
  }

  /** True once a report has taught us how this endpoint counts tool definitions. */
  get toolsCalibrated(): boolean {
    return this.estimate().tools !== undefined;
  }

  get contentRatio(): number {
    return this.estimate().content ?? this.priorContent;
  }

  /** undefined until learned: the meter then uses its conservative estimate of the tools. */
  get toolsRatio(): number | undefined {
    return this.estimate().tools;
  }

  /** A content count in the endpoint's units. */
  apply(count: number): number {
    return Math.round(count * this.contentRatio);
  }

  private estimate(): { content: number | undefined; tools: number | undefined } {
    this.cached ??= this.fit();
    return this.cached;
  }

  private fit(): { content: number | undefined; tools: number | undefined } {
    const slopes: number[] = [];
    const direct: number[] = [];
    this.observations.forEach((current, index) => {
      if (current.tools === 0 && current.content >= MIN_COUNTED) direct.push(current.reported / current.content);
      const previous = this.observations[index - 1];
      if (!previous || previous.tools !== current.tools) return;
      const grown = current.content - previous.content;
      if (Math.abs(grown) < Math.max(256, 0.02 * current.content)) return;
      const slope = (current.reported - previous.reported) / grown;
      if (slope >= LOW && slope <= HIGH) slopes.push(slope);
    });
    const content = median(slopes) ?? median(direct);
    const ratio = content ?? this.priorContent;
    const toolSamples = this.observations
      .filter((observation) => observation.tools >= 64)
      .map((observation) => (observation.reported - ratio * observation.content) / observation.tools)
      .filter((sample) => sample >= TOOLS_LOW && sample <= TOOLS_HIGH);
    return { content, tools: median(toolSamples) };
  }

  toJSON(): CalibrationJSON {
    return { version: 2, model: this.model, observations: this.observations.map((o) => [o.reported, o.content, o.tools]) };
  }

  /**
   * Restores a persisted calibration; implausible records are dropped and a wrong shape starts fresh. The
   * first format (a list of reported/counted ratios) becomes the content prior.
   */
  static fromJSON(json: unknown, model: string): Calibration {
    if (typeof json !== 'object' || json === null) return new Calibration(model);
    const record = json as { model?: unknown; ratios?: unknown; observations?: unknown };
    if (record.model !== model) return new Calibration(model);
    if (Array.isArray(record.ratios)) {
      const ratios = record.ratios.filter((ratio): ratio is number => typeof ratio === 'number' && ratio >= LOW && ratio <= HIGH);
      return new Calibration(model, median(ratios) ?? 1);
    }
    const calibration = new Calibration(model);
    if (!Array.isArray(record.observations)) return calibration;
    for (const item of record.observations.slice(-KEPT)) {
      if (!Array.isArray(item) || item.length !== 3 || !item.every((value) => typeof value === 'number')) continue;
      const [reported, content, tools] = item as [number, number, number];
      calibration.observe({ reported, content, tools });
    }
    return calibration;
  }
}
