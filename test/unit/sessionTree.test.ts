// SessionTree.pathTo reuses the previously computed path: it must equal a plain parent walk after any mix of appends, branch switches and bad parents.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SessionEntry } from '../../src/core/session/entries';
import { SessionTree } from '../../src/core/session/sessionTree';

function user(id: string, parentId: string | null): SessionEntry {
  return { type: 'user', id, parentId, timestamp: '2025-01-01T00:00:00.000Z', text: id };
}

function leafMove(id: string, targetId: string): SessionEntry {
  return { type: 'leaf', id, parentId: null, timestamp: '2025-01-01T00:00:00.000Z', targetId, reason: 'switch' };
}

/** The reference: parent links followed one by one, from scratch, over the entries in file order. */
function walkedPath(entries: readonly SessionEntry[], leafId: string | null): string[] {
  const byId = new Map<string, SessionEntry>();
  for (const entry of entries) byId.set(entry.id, entry);
  let entry = leafId === null ? undefined : byId.get(leafId);
  if (entry?.type === 'leaf') entry = byId.get(entry.targetId);
  const ids: string[] = [];
  const seen = new Set<string>();
  while (entry && entry.type !== 'leaf' && !seen.has(entry.id)) {
    seen.add(entry.id);
    ids.push(entry.id);
    const index = entries.indexOf(entry);
    const parent = entry.parentId === null ? undefined : byId.get(entry.parentId);
    // A parent that came later in the file (or is a leaf move) makes the entry a root.
    if (!parent || entries.indexOf(parent) > index || parent.type === 'leaf') break;
    entry = parent;
  }
  return ids.reverse();
}

const ids = (path: readonly SessionEntry[]): string[] => path.map((entry) => entry.id);

describe('SessionTree.pathTo', () => {
  it('stays correct across appends after a cache hit, branch switches and a return to the first branch', () => {
    const tree = new SessionTree([user('a', null), user('b', 'a'), user('c', 'b')]);
    expect(ids(tree.pathTo('c'))).toEqual(['a', 'b', 'c']);
    tree.add(user('d', 'c'));
    const first = tree.pathTo('d');
    expect(ids(first)).toEqual(['a', 'b', 'c', 'd']);
    tree.add(user('e', 'd'));
    expect(ids(tree.pathTo('e'))).toEqual(['a', 'b', 'c', 'd', 'e']);
    // Fork at b: the cached path is longer than the new one and must be cut, not reused whole.
    tree.add(user('x', 'b'));
    expect(ids(tree.pathTo('x'))).toEqual(['a', 'b', 'x']);
    tree.add(user('y', 'x'));
    expect(ids(tree.pathTo('y'))).toEqual(['a', 'b', 'x', 'y']);
    expect(ids(tree.pathTo('e'))).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(ids(tree.pathTo('c'))).toEqual(['a', 'b', 'c']);
    expect(ids(tree.pathTo('y'))).toEqual(['a', 'b', 'x', 'y']);
    tree.add(leafMove('l1', 'd'));
    expect(ids(tree.pathTo('l1'))).toEqual(['a', 'b', 'c', 'd']);
    // An array handed out earlier is the caller's own: later calls never change it.
    expect(ids(first)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('returns a fresh array each call, so a caller mutating it cannot corrupt later paths', () => {
    const tree = new SessionTree([user('a', null), user('b', 'a')]);
    const path = tree.pathTo('b');
    path.length = 0;
    path.push(user('z', null));
    expect(ids(tree.pathTo('b'))).toEqual(['a', 'b']);
    tree.add(user('c', 'b'));
    expect(ids(tree.pathTo('c'))).toEqual(['a', 'b', 'c']);
  });

  it('treats dangling entries as roots and answers [] for unknown ids and null', () => {
    const tree = new SessionTree([user('a', null), user('b', 'a'), user('orphan', 'missing'), user('child', 'orphan')]);
    expect(ids(tree.pathTo('b'))).toEqual(['a', 'b']);
    expect(ids(tree.pathTo('child'))).toEqual(['orphan', 'child']);
    expect(tree.pathTo('nope')).toEqual([]);
    expect(tree.pathTo(null)).toEqual([]);
    expect(ids(tree.pathTo('b'))).toEqual(['a', 'b']);
  });

  it('equals a plain parent walk after any sequence of appends, forks, leaf moves and lookups', () => {
    type Step = { kind: 'append' | 'fork' | 'dangling' | 'leaf' | 'look'; pick: number };
    const step: fc.Arbitrary<Step> = fc.record({ kind: fc.constantFrom('append', 'append', 'fork', 'dangling', 'leaf', 'look'), pick: fc.nat() });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const entries: SessionEntry[] = [user('n0', null)];
        const tree = new SessionTree(entries);
        steps.forEach((current, n) => {
          const nodes = entries.filter((entry) => entry.type !== 'leaf');
          const target = nodes[current.pick % nodes.length]?.id ?? 'n0';
          let added: SessionEntry | undefined;
          if (current.kind === 'append') added = user(`n${n + 1}`, tree.leafId);
          else if (current.kind === 'fork') added = user(`n${n + 1}`, target);
          else if (current.kind === 'dangling') added = user(`n${n + 1}`, `missing${n}`);
          else if (current.kind === 'leaf') added = leafMove(`l${n + 1}`, target);
          if (added) {
            entries.push(added);
            tree.add(added);
          }
          const asked = current.kind === 'look' ? target : tree.leafId;
          expect(ids(tree.pathTo(asked))).toEqual(walkedPath(entries, asked));
          expect(ids(tree.pathTo(target))).toEqual(walkedPath(entries, target));
        });
      }),
      { numRuns: 200 },
    );
  });
});
