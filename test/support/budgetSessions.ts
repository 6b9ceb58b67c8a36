// Test helper: random sessions (turns of tool calls and results) with synthetic token counts, for property tests.
import fc from 'fast-check';
import type { MessageEntry, SessionEntry } from '../../src/core/session/entries';
import type { EntryCounts } from '../../src/core/tokens/entryTokens';
import { PathBuilder } from './sessionPathBuilder';

export const PLACEHOLDER_TOKENS = 25;
export const TOOL_NAMES = ['read_file', 'run_command', 'search_text', 'skill'] as const;

export interface StepSpec {
  textTokens: number;
  results: Array<{ tool: number; tokens: number }>;
}
export interface TurnSpec {
  userTokens: number;
  steps: StepSpec[];
}
export interface SessionSpec {
  turns: TurnSpec[];
  /** Insert a compaction after this many turns (keeping from the start of the previous turn), if any. */
  compactAfter: number | null;
  /** Prune the first result of this turn index, if any. */
  pruneTurn: number | null;
}

const step = fc.record({
  textTokens: fc.integer({ min: 5, max: 3000 }),
  results: fc.array(fc.record({ tool: fc.integer({ min: 0, max: TOOL_NAMES.length - 1 }), tokens: fc.integer({ min: 10, max: 30_000 }) }), { maxLength: 3 }),
});
const turn = fc.record({ userTokens: fc.integer({ min: 5, max: 4000 }), steps: fc.array(step, { minLength: 1, maxLength: 6 }) });

export const sessionSpec: fc.Arbitrary<SessionSpec> = fc.record({
  turns: fc.array(turn, { minLength: 1, maxLength: 12 }),
  compactAfter: fc.option(fc.integer({ min: 1, max: 11 }), { nil: null }),
  pruneTurn: fc.option(fc.integer({ min: 0, max: 11 }), { nil: null }),
});

export interface BuiltSession {
  path: SessionEntry[];
  counts: EntryCounts;
}

/** Builds the path and its per-entry counts (full = the spec's size, pruned = a fixed placeholder). */
export function buildSession(spec: SessionSpec): BuiltSession {
  const builder = new PathBuilder();
  const full = new Map<string, number>();
  const pruned = new Map<string, number>();
  const turnStarts: string[] = [];
  let callNumber = 0;
  spec.turns.forEach((turnSpec, t) => {
    if (spec.compactAfter === t && t >= 1) builder.compaction(`c${t}`, turnStarts[t - 1] ?? null);
    const user = builder.user(`u${t}`);
    turnStarts.push(user.id);
    full.set(user.id, turnSpec.userTokens);
    turnSpec.steps.forEach((stepSpec, s) => {
      const calls = stepSpec.results.map(() => `call${callNumber++}`);
      const assistant = builder.assistant(`a${t}_${s}`, calls);
      full.set(assistant.id, stepSpec.textTokens);
      stepSpec.results.forEach((result, r) => {
        const entry = builder.tool(`r${t}_${s}_${r}`, calls[r]!);
        entry.toolName = TOOL_NAMES[result.tool]!;
        full.set(entry.id, result.tokens);
        pruned.set(entry.id, PLACEHOLDER_TOKENS);
      });
    });
    if (spec.pruneTurn === t) {
      const first = builder.entries.find((entry) => entry.type === 'toolResult' && entry.id.startsWith(`r${t}_`));
      if (first) builder.prune(`p${t}`, [first.id]);
    }
  });
  return { path: builder.path(), counts: { full, pruned } };
}

export function messagesOf(path: readonly SessionEntry[]): MessageEntry[] {
  return path.filter((entry): entry is MessageEntry => entry.type === 'user' || entry.type === 'assistant' || entry.type === 'toolResult');
}
