// Remembers, per endpoint and model and across sessions, a context window learned from an overflow error.
import type * as vscode from 'vscode';

const KEY = 'compactionAgent.learnedWindows';
/** Oldest entries are dropped beyond this many endpoint+model pairs. */
const MAX_ENTRIES = 200;

interface LearnedWindow {
  tokens: number;
  /** When it was learned (ms since the epoch), to drop the oldest first. */
  at: number;
}

type Stored = Record<string, LearnedWindow>;

function entryKey(endpoint: string, model: string): string {
  return `${endpoint}\u0000${model}`;
}

function isLearned(value: unknown): value is LearnedWindow {
  if (typeof value !== 'object' || value === null) return false;
  const { tokens, at } = value as Record<string, unknown>;
  return typeof tokens === 'number' && Number.isFinite(tokens) && tokens > 0 && typeof at === 'number';
}

export class WindowMemory {
  constructor(private readonly memento: vscode.Memento) {}

  private stored(): Stored {
    const value: unknown = this.memento.get(KEY);
    return typeof value === 'object' && value !== null ? (value as Stored) : {};
  }

  /** The window learned for this endpoint (its base URL, or a VS Code vendor) and model, if any. */
  get(endpoint: string, model: string): number | undefined {
    const entry = this.stored()[entryKey(endpoint, model)];
    return isLearned(entry) ? Math.floor(entry.tokens) : undefined;
  }

  /** Keeps the smaller of what is known and what was learned; never throws. */
  async remember(endpoint: string, model: string, tokens: number): Promise<void> {
    if (!Number.isFinite(tokens) || tokens <= 0) return;
    const stored = { ...this.stored() };
    const key = entryKey(endpoint, model);
    const known = stored[key];
    if (isLearned(known) && known.tokens <= tokens) return;
    stored[key] = { tokens: Math.floor(tokens), at: Date.now() };
    const entries = Object.entries(stored).filter((entry): entry is [string, LearnedWindow] => isLearned(entry[1]));
    entries.sort((a, b) => b[1].at - a[1].at);
    await Promise.resolve(this.memento.update(KEY, Object.fromEntries(entries.slice(0, MAX_ENTRIES)))).catch(() => undefined);
  }
}
