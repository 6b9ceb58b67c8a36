// Property tests over random append/prune/compact/pin/restore/switch sequences on a real file-backed log.
import * as nodePath from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildContext, type BuiltContext } from '../../src/core/context/contextBuilder';
import type { SessionEntry } from '../../src/core/session/entries';
import { SessionLog } from '../../src/core/session/sessionLog';
import { tempDir } from '../support/sessionTempDir';
import { validateChatMessages } from '../support/validateChatMessages';

const KINDS = ['user', 'assistant', 'tool', 'orphanTool', 'prune', 'compact', 'pin', 'unpin', 'restore', 'switch'] as const;
type Step = { kind: (typeof KINDS)[number]; n: number; m: number };
const stepArb: fc.Arbitrary<Step> = fc.record({ kind: fc.constantFrom(...KINDS), n: fc.nat(1000), m: fc.nat(1000) });

let dir: string;
let cleanup: () => void;
let counter = 0;
beforeAll(() => ({ dir, cleanup } = tempDir()));
afterAll(() => cleanup());

function pick<T>(items: readonly T[], n: number): T | undefined {
  return items.length === 0 ? undefined : items[n % items.length];
}

function pendingCalls(path: readonly SessionEntry[]): string[] {
  const answered = new Set(path.flatMap((entry) => (entry.type === 'toolResult' ? [entry.toolCallId] : [])));
  return path.flatMap((entry) => (entry.type === 'assistant' ? entry.toolCalls.map((call) => call.id) : [])).filter((id) => !answered.has(id));
}

async function apply(log: SessionLog, step: Step, before: Map<string, BuiltContext>): Promise<void> {
  const path = log.path();
  const messages = path.filter((entry) => entry.type === 'user' || entry.type === 'assistant' || entry.type === 'toolResult');
  switch (step.kind) {
    case 'user':
      await log.append({ type: 'user', text: `user ${step.n}` });
      return;
    case 'assistant': {
      const calls = Array.from({ length: step.n % 3 }, (_, i) => ({ id: `call-${counter++}-${i}`, name: 'read_file', arguments: '{}' }));
      const empty = step.m % 4 === 0;
      await log.append({ type: 'assistant', text: empty ? '' : `reply ${step.m}`, toolCalls: calls, ...(empty ? { stopReason: 'aborted' as const } : {}) });
      return;
    }
    case 'tool':
    case 'orphanTool': {
      const callId = step.kind === 'tool' ? pick(pendingCalls(path), step.n) : `ghost-${step.n}`;
      if (callId) await log.append({ type: 'toolResult', toolCallId: callId, toolName: 'read_file', isError: false, content: `out ${step.m}` });
      return;
    }
    case 'prune': {
      const results = path.filter((entry) => entry.type === 'toolResult').map((entry) => entry.id);
      const chosen = results.filter((_, i) => (step.n >> i) % 2 === 1);
      if (chosen.length > 0) await log.append({ type: 'prune', toolResultIds: chosen, tokensFreed: 1, reason: 'auto' });
      return;
    }
    case 'compact': {
      if (path.length === 0) return;
      before.set('pending', buildContext(path));
      const kept = step.m % 5 === 0 ? null : (pick(path, step.n)?.id ?? null);
      const compaction = await log.append({
        type: 'compaction', summary: `summary ${step.n}`, firstKeptEntryId: kept, tokensBefore: 10, tokensAfter: 1,
        files: { read: [], modified: [] }, edited: false, auto: true, ...(step.m % 3 === 0 ? { turnPrefixSummary: 'prefix' } : {}),
      });
      before.set(compaction.id, before.get('pending') as BuiltContext);
      return;
    }
    case 'pin':
    case 'unpin': {
      const target = pick(messages, step.n);
      if (target) await log.append({ type: 'pin', targetId: target.id, pinned: step.kind === 'pin' });
      return;
    }
    case 'restore': {
      const compaction = pick(log.tree.compactionsOnPath(log.leafId), step.n);
      if (!compaction) return;
      await log.restoreBeforeCompaction(compaction.id);
      expect(buildContext(log.path())).toEqual(before.get(compaction.id));
      return;
    }
    case 'switch': {
      const target = pick(step.m % 2 === 0 ? log.tree.leaves() : log.tree.entries.filter((entry) => entry.type !== 'leaf'), step.n);
      if (target) await log.moveLeaf(target.id);
      return;
    }
  }
}

describe('session properties', () => {
  it('every entry survives reload, no context has orphaned tool pairs, restore gives the pre-compaction context', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 40 }), async (steps) => {
        const file = nodePath.join(dir, `p${counter++}.jsonl`);
        const log = await SessionLog.create(file, {}, { lock: false });
        const before = new Map<string, BuiltContext>();
        for (const step of steps) {
          await apply(log, step, before);
          expect(validateChatMessages(buildContext(log.path(), { systemPrompt: 's' }).messages)).toEqual([]);
        }
        for (const tip of log.tree.leaves()) expect(validateChatMessages(buildContext(log.tree.pathTo(tip.id)).messages)).toEqual([]);
        await log.close();
        const { log: reloaded, warnings } = await SessionLog.open(file, { readOnly: true });
        expect(warnings).toEqual([]);
        expect(reloaded.tree.entries).toEqual(log.tree.entries);
        expect(reloaded.leafId).toBe(log.leafId);
        expect(buildContext(reloaded.path())).toEqual(buildContext(log.path()));
      }),
      { numRuns: 60 },
    );
  });
});
