// Test helper: builds entry chains (u1, a1, t1 ...) with ids, parents and timestamps filled in.
import type { AssistantEntry, CompactionEntry, DropEntry, PinEntry, PruneEntry, SessionEntry, ToolResultEntry, UserEntry } from '../../src/core/session/entries';

export class PathBuilder {
  readonly entries: SessionEntry[] = [];
  leaf: string | null = null;
  private clock = 0;

  private add<T extends SessionEntry>(entry: Omit<T, 'parentId' | 'timestamp'>): T {
    const full = { ...entry, parentId: this.leaf, timestamp: new Date(Date.UTC(2025, 0, 1, 0, 0, this.clock++)).toISOString() } as T;
    this.entries.push(full);
    this.leaf = full.id;
    return full;
  }

  /** Moves the leaf (the next entry forks a branch from `id`). */
  at(id: string | null): this {
    this.leaf = id;
    return this;
  }

  user(id: string, text = `text of ${id}`): UserEntry {
    return this.add<UserEntry>({ type: 'user', id, text });
  }

  /** An assistant message; `calls` are tool-call ids (tool name "read_file"). */
  assistant(id: string, calls: string[] = [], text = `text of ${id}`, extra: Partial<AssistantEntry> = {}): AssistantEntry {
    const toolCalls = calls.map((call) => ({ id: call, name: 'read_file', arguments: `{"path":"${call}.ts"}` }));
    return this.add<AssistantEntry>({ type: 'assistant', id, text, toolCalls, ...extra });
  }

  tool(id: string, callId: string, content = `output of ${id}`): ToolResultEntry {
    return this.add<ToolResultEntry>({ type: 'toolResult', id, toolCallId: callId, toolName: 'read_file', isError: false, content });
  }

  compaction(id: string, firstKeptEntryId: string | null, summary = `summary ${id}`, extra: Partial<CompactionEntry> = {}): CompactionEntry {
    return this.add<CompactionEntry>({
      type: 'compaction',
      id,
      summary,
      firstKeptEntryId,
      tokensBefore: 1000,
      tokensAfter: 100,
      files: { read: [], modified: [] },
      edited: false,
      auto: true,
      ...extra,
    });
  }

  prune(id: string, toolResultIds: string[]): PruneEntry {
    return this.add<PruneEntry>({ type: 'prune', id, toolResultIds, tokensFreed: 10, reason: 'auto' });
  }

  pin(id: string, targetId: string, pinned = true): PinEntry {
    return this.add<PinEntry>({ type: 'pin', id, targetId, pinned });
  }

  drop(id: string, entryIds: string[], dropped = true): DropEntry {
    return this.add<DropEntry>({ type: 'drop', id, entryIds, dropped, label: `drop ${id}`, tokens: 0 });
  }

  /** Root→leaf path of the current leaf. */
  path(leaf: string | null = this.leaf): SessionEntry[] {
    const byId = new Map(this.entries.map((entry) => [entry.id, entry]));
    const path: SessionEntry[] = [];
    let entry = leaf === null ? undefined : byId.get(leaf);
    while (entry) {
      path.push(entry);
      entry = entry.parentId === null ? undefined : byId.get(entry.parentId);
    }
    return path.reverse();
  }
}

/**
 * Entries from their fields alone, each the child of the one before: ids e0, e1, …, timestamps a second apart.
 * For tests that write entries as plain objects (including kinds the typed builder above does not cover).
 */
export function chainEntries(fields: ReadonlyArray<Record<string, unknown>>): SessionEntry[] {
  let parentId: string | null = null;
  return fields.map((entry, index) => {
    const full = { id: `e${index}`, parentId, timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString(), ...entry } as unknown as SessionEntry;
    parentId = full.id;
    return full;
  });
}
