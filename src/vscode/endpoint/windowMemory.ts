// Remembers, per endpoint and model and across sessions, a context window learned from an overflow error or a truncated prompt.
import type * as vscode from 'vscode';
import { boundedWindow, resolveContextWindow, windowIsKnown, type ContextWindowInputs, type LearnedFact, type ResolvedWindow } from '../../core/llm/contextWindow';

const KEY = 'compactionAgent.learnedWindows';
/** Oldest entries are dropped beyond this many endpoint+model pairs. */
const MAX_ENTRIES = 200;
/** A learned window is forgotten after this long: servers get reconfigured, models reloaded. */
export const LEARNED_WINDOW_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;

export type LearnedHow = 'overflow' | 'truncation';

export interface LearnedWindow {
  tokens: number;
  /** When it was learned (ms since the epoch). */
  at: number;
  /** What taught it: an overflow error that named it, or a prompt the server shortened to fit it. */
  how: LearnedHow;
  /** The window the server (or the model's metadata) reported when it was learned; a larger later report replaces it. */
  reported?: number;
}

/** One entry for the list command. */
export interface LearnedWindowEntry extends LearnedWindow {
  endpoint: string;
  model: string;
}

type Stored = Record<string, unknown>;

const SEPARATOR = '\u0000';

function entryKey(endpoint: string, model: string): string {
  return `${endpoint}${SEPARATOR}${model}`;
}

/** A stored entry as it can be used now: within the window bounds, learned in the past, not expired. Older entries (no `how`) were overflows. */
function readEntry(value: unknown, now: number): LearnedWindow | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { tokens, at, how, reported } = value as Record<string, unknown>;
  const bounded = boundedWindow(tokens);
  if (bounded === undefined || typeof at !== 'number' || !Number.isFinite(at) || at > now + 60_000 || now - at > LEARNED_WINDOW_LIFETIME_MS) return undefined;
  const learned: LearnedWindow = { tokens: bounded, at, how: how === 'truncation' ? 'truncation' : 'overflow' };
  const serverSaid = boundedWindow(reported);
  if (serverSaid !== undefined) learned.reported = serverSaid;
  return learned;
}

/** How a learned window reads where the window's source is shown. */
export function learnedDetail(learned: Pick<LearnedWindow, 'how' | 'at'>): string {
  const day = new Date(learned.at).toISOString().slice(0, 10);
  return learned.how === 'truncation'
    ? `learned on ${day} from a prompt the server truncated (Compaction Agent: Learned Context Windows to forget it)`
    : `learned on ${day} from an overflow error of this endpoint (Compaction Agent: Learned Context Windows to forget it)`;
}

export class WindowMemory {
  constructor(
    private readonly memento: vscode.Memento,
    private readonly now: () => number = Date.now,
  ) {}

  private stored(): Stored {
    const value: unknown = this.memento.get(KEY);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Stored) : {};
  }

  /** The window learned for this endpoint (its base URL, or a VS Code vendor) and model, if any and still valid. */
  get(endpoint: string, model: string): LearnedWindow | undefined {
    return readEntry(this.stored()[entryKey(endpoint, model)], this.now());
  }

  /** The learned window as the resolver takes it, with where it came from. */
  fact(endpoint: string, model: string): LearnedFact | undefined {
    const learned = this.get(endpoint, model);
    if (!learned) return undefined;
    return { contextWindow: learned.tokens, detail: learnedDetail(learned), ...(learned.reported !== undefined ? { reported: learned.reported } : {}) };
  }

  /** Every valid learned window, newest first. */
  list(): LearnedWindowEntry[] {
    const now = this.now();
    const entries: LearnedWindowEntry[] = [];
    for (const [key, value] of Object.entries(this.stored())) {
      const learned = readEntry(value, now);
      const split = key.indexOf(SEPARATOR);
      if (!learned || split < 0) continue;
      entries.push({ ...learned, endpoint: key.slice(0, split), model: key.slice(split + 1) });
    }
    return entries.sort((a, b) => b.at - a.at);
  }

  /**
   * Keeps the smaller of a still valid learned window and the new one (a window outside the bounds is
   * ignored); `reported` is what the server said at the time. Never throws.
   */
  async remember(endpoint: string, model: string, tokens: number, how: LearnedHow = 'overflow', reported?: number): Promise<void> {
    const bounded = boundedWindow(tokens);
    if (bounded === undefined) return;
    const now = this.now();
    const known = this.get(endpoint, model);
    if (known && known.tokens <= bounded) return;
    const serverSaid = boundedWindow(reported);
    const entry: LearnedWindow = { tokens: bounded, at: now, how, ...(serverSaid !== undefined ? { reported: serverSaid } : {}) };
    await this.write({ ...this.valid(now), [entryKey(endpoint, model)]: entry });
  }

  /** Forgets one learned window (or all of them without arguments). */
  async forget(entry?: { endpoint: string; model: string }): Promise<void> {
    if (!entry) return this.write({});
    const kept = this.valid(this.now());
    delete kept[entryKey(entry.endpoint, entry.model)];
    return this.write(kept);
  }

  private valid(now: number): Record<string, LearnedWindow> {
    const kept: Record<string, LearnedWindow> = {};
    for (const [key, value] of Object.entries(this.stored())) {
      const learned = readEntry(value, now);
      if (learned) kept[key] = learned;
    }
    return kept;
  }

  private async write(entries: Record<string, LearnedWindow>): Promise<void> {
    const newest = Object.entries(entries).sort((a, b) => b[1].at - a[1].at).slice(0, MAX_ENTRIES);
    await Promise.resolve(this.memento.update(KEY, Object.fromEntries(newest))).catch(() => undefined);
  }
}

/** The resolved window and how to remember a window learned for it. */
export interface WindowWithMemory {
  window: ResolvedWindow;
  remember: (tokens: number, how?: LearnedHow) => void;
}

/**
 * Resolves the window from everything known and keeps the memory honest: a learned window the server now
 * reports more than is forgotten; a newly learned one is kept with what the server reports now.
 */
export function resolveWindowWithMemory(memory: WindowMemory, endpointKey: string, model: string, inputs: ContextWindowInputs): WindowWithMemory {
  const window = resolveContextWindow(inputs);
  if (window.replacedLearned) void memory.forget({ endpoint: endpointKey, model });
  const reported = resolveContextWindow({ ...inputs, setting: null, learned: null });
  const serverSaid = windowIsKnown(reported.source) ? reported.tokens : undefined;
  return { window, remember: (tokens, how = 'overflow') => void memory.remember(endpointKey, model, tokens, how, serverSaid) };
}
