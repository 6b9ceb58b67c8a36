// Availability, the value bench's measure of worth: per model call, of the salient things its recorded reply uses that appeared earlier, the share anywhere in the prompt that call was sent.
import type { ChatMessage } from '../src/core/context/chatMessage';
import { commandOf, salientTokens, type NeedIndex } from './needRetention';
import type { PrefixCache } from './prefixCache';

/** One model call's sample: the earlier-seen salient things its reply uses, and how many of them its prompt held. */
export interface CallSample {
  needs: number;
  available: number;
}

/**
 * The salient tokens of a message as sent, with every path also counted by its trailing parts (`a/b/c.ts` also holds
 * `b/c.ts` and `c.ts`), so a need named more briefly than the prompt names it is still found there.
 */
export function messageTokens(message: ChatMessage): Set<string> {
  const texts = [message.content ?? ''];
  const commands: string[] = [];
  if (message.role === 'assistant') {
    for (const call of message.tool_calls ?? []) {
      texts.push(argumentText(call.function.arguments));
      const command = commandOf(call.function.arguments);
      if (command) commands.push(command);
    }
  }
  const tokens = salientTokens(texts.join('\n'));
  for (const token of [...tokens]) {
    if (!token.includes('/')) continue;
    const parts = token.split('/');
    for (let i = 1; i < parts.length; i++) if (parts[i]) tokens.add(parts.slice(i).join('/'));
  }
  for (const command of commands) tokens.add(command);
  return tokens;
}

/** The string values of a call's JSON arguments (escapes undone), or the raw text when it is not JSON. */
function argumentText(args: string): string {
  try {
    const parsed: unknown = JSON.parse(args);
    if (typeof parsed !== 'object' || parsed === null) return args;
    return Object.values(parsed as Record<string, unknown>)
      .map((value) => (typeof value === 'string' ? value : JSON.stringify(value)))
      .join('\n');
  } catch {
    return args;
  }
}

/**
 * Which prompt parts hold which token, built once per bench run over the meter's interned parts (the same message
 * sent on many calls is read once): token → the parts that hold it.
 */
export class AvailabilityIndex {
  private readonly done = new Set<number>();
  private readonly holders = new Map<string, number[]>();

  constructor(private readonly meter: PrefixCache) {}

  private learn(part: number): void {
    if (this.done.has(part)) return;
    this.done.add(part);
    const text = this.meter.partText(part);
    if (text.startsWith('tools:')) return;
    let message: ChatMessage;
    try {
      message = JSON.parse(text) as ChatMessage;
    } catch {
      return;
    }
    for (const token of messageTokens(message)) {
      const list = this.holders.get(token);
      if (list) list.push(part);
      else this.holders.set(token, [part]);
    }
  }

  /**
   * One call's sample: the salient tokens of the reply at `position` that occurred earlier in the trace, and how
   * many of them some part of `parts` (the prompt as sent) holds. A call that was never sent (`parts` null: the
   * policy dropped the step) holds none of them.
   */
  sample(index: NeedIndex, position: number, parts: readonly number[] | null): CallSample {
    const needs = index.earlierUses(position);
    if (needs.length === 0 || parts === null) return { needs: needs.length, available: 0 };
    for (const part of parts) this.learn(part);
    const prompt = new Set(parts);
    let available = 0;
    for (const token of needs) if ((this.holders.get(token) ?? []).some((part) => prompt.has(part))) available++;
    return { needs: needs.length, available };
  }
}

/** A seeded generator (mulberry32), so the interval is the same on every run of the same data. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Share {
  /** Pooled share: all available over all needs (null when nothing was needed). */
  value: number | null;
  /** 90 % bootstrap interval: 5th and 95th percentile of the pooled share over resamples of the units. */
  low: number | null;
  high: number | null;
  /** Units resampled (calls with a need, or compactions with a need) and needs in all. */
  units: number;
  needs: number;
}

export const BOOTSTRAP_RESAMPLES = 1000;

/** The pooled share of `parts` over `wholes` with a 90 % percentile bootstrap over the units (seeded). */
export function bootstrapShare(samples: ReadonlyArray<{ part: number; whole: number }>, resamples = BOOTSTRAP_RESAMPLES): Share {
  const units = samples.filter((s) => s.whole > 0);
  const needs = units.reduce((sum, s) => sum + s.whole, 0);
  if (needs === 0) return { value: null, low: null, high: null, units: 0, needs: 0 };
  const value = units.reduce((sum, s) => sum + s.part, 0) / needs;
  const next = random(0x5eed + units.length);
  const shares: number[] = [];
  for (let r = 0; r < resamples; r++) {
    let part = 0;
    let whole = 0;
    for (let i = 0; i < units.length; i++) {
      const unit = units[Math.floor(next() * units.length)] as { part: number; whole: number };
      part += unit.part;
      whole += unit.whole;
    }
    shares.push(whole > 0 ? part / whole : 0);
  }
  shares.sort((a, b) => a - b);
  const at = (q: number): number => shares[Math.min(shares.length - 1, Math.max(0, Math.floor(q * (shares.length - 1))))] ?? value;
  return { value, low: at(0.05), high: at(0.95), units: units.length, needs };
}
