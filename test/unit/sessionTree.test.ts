// SessionTree.pathTo reuses the previously computed path (extended in place by appends): it must equal a plain parent walk after any mix of appends, branch switches and bad parents, never change a path handed out but at its end, and no parent links can make it loop.
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

/**
 * The reference, from scratch over the entries in file order: a node hangs from its parentId's entry when that
 * is an earlier node, else from the leaf current when it was added (itself, a later entry, a leaf move or a
 * missing id all count as missing); then parent links are followed one by one.
 */
function walkedPath(entries: readonly SessionEntry[], leafId: string | null): string[] {
  const byId = new Map<string, SessionEntry>();
  const parentOf = new Map<SessionEntry, SessionEntry | null>();
  let current: SessionEntry | null = null;
  for (const entry of entries) {
    if (entry.type === 'leaf') {
      const target = byId.get(entry.targetId);
      if (target && target.type !== 'leaf') current = target;
      byId.set(entry.id, entry);
      continue;
    }
    const named = entry.parentId === null ? null : byId.get(entry.parentId);
    parentOf.set(entry, named === undefined || named?.type === 'leaf' ? current : named);
    byId.set(entry.id, entry);
    current = entry;
  }
  let entry = leafId === null ? undefined : byId.get(leafId);
  if (entry?.type === 'leaf') entry = byId.get(entry.targetId);
  const ids: string[] = [];
  while (entry && entry.type !== 'leaf') {
    ids.push(entry.id);
    entry = parentOf.get(entry) ?? undefined;
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
    const fork = tree.pathTo('x');
    expect(ids(fork)).toEqual(['a', 'b', 'x']);
    tree.add(user('y', 'x'));
    expect(ids(tree.pathTo('y'))).toEqual(['a', 'b', 'x', 'y']);
    expect(ids(tree.pathTo('e'))).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(ids(tree.pathTo('c'))).toEqual(['a', 'b', 'c']);
    expect(ids(tree.pathTo('y'))).toEqual(['a', 'b', 'x', 'y']);
    tree.add(leafMove('l1', 'd'));
    expect(ids(tree.pathTo('l1'))).toEqual(['a', 'b', 'c', 'd']);
    // An array handed out earlier only ever grew at its end (the appends below its leaf); the fork left it whole.
    expect(ids(first)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(ids(fork)).toEqual(['a', 'b', 'x', 'y']);
  });

  it('extends the path in place as entries are appended below its leaf: a new entry costs itself, not a copy of the path', () => {
    const tree = new SessionTree([user('a', null), user('b', 'a')]);
    const path = tree.pathTo('b');
    expect(tree.pathTo('b')).toBe(path);
    tree.add(user('c', 'b'));
    tree.add(user('d', 'c'));
    expect(tree.pathTo('d')).toBe(path);
    expect(ids(path)).toEqual(['a', 'b', 'c', 'd']);
    // Asking for an earlier entry or another branch gives a new array and leaves this one as it is.
    const earlier = tree.pathTo('b');
    expect(earlier).not.toBe(path);
    expect(ids(earlier)).toEqual(['a', 'b']);
    tree.add(user('x', 'b'));
    expect(ids(tree.pathTo('x'))).toEqual(['a', 'b', 'x']);
    expect(ids(path)).toEqual(['a', 'b', 'c', 'd']);
    expect(Object.isFrozen(tree.pathTo(null))).toBe(true);
  });

  it('hangs an entry with a missing parent from the entry before it on its branch, and answers [] for unknown ids and null', () => {
    const tree = new SessionTree([user('a', null), user('b', 'a'), user('orphan', 'missing'), user('child', 'orphan')]);
    expect(ids(tree.pathTo('b'))).toEqual(['a', 'b']);
    expect(ids(tree.pathTo('child'))).toEqual(['a', 'b', 'orphan', 'child']);
    expect(tree.reattachments().map((item) => [item.entry.id, item.parent?.id])).toEqual([['orphan', 'b']]);
    expect(tree.danglingEntries().map((entry) => entry.id)).toEqual(['orphan']);
    expect(tree.pathTo('nope')).toEqual([]);
    expect(tree.pathTo(null)).toEqual([]);
    // After a leaf move the entry before it on its branch is the moved-to leaf, not the last line.
    tree.add(leafMove('l1', 'a'));
    tree.add(user('lost-parent', 'gone'));
    expect(ids(tree.pathTo('lost-parent'))).toEqual(['a', 'lost-parent']);
    expect(tree.children('a').map((entry) => entry.id)).toEqual(['b', 'lost-parent']);
  });

  it('parent-cycle-never-loops: self-parents, a→b→a, rings through later entries and reused ids all end', () => {
    const entries = [
      user('r', null),
      user('self', 'self'),
      user('a', 'b'),
      user('b', 'a'),
      user('x', 'z'),
      user('y', 'x'),
      user('z', 'y'),
      // A reused id re-pointing "a" below "z" would close a→…→a through lookups by id.
      user('a', 'z'),
      leafMove('loop', 'loop'),
    ];
    const tree = new SessionTree(entries);
    for (const id of ['r', 'self', 'a', 'b', 'x', 'y', 'z', 'loop']) {
      const path = tree.pathTo(id);
      expect(path.length).toBeLessThanOrEqual(entries.length);
      expect(new Set(path).size).toBe(path.length);
      expect(ids(path)).toEqual(walkedPath(entries, id));
    }
    expect(ids(tree.pathTo('self'))).toEqual(['r', 'self']);
    expect(ids(tree.pathTo('b'))).toEqual(['r', 'self', 'a', 'b']);
    expect(tree.parentOfNode('self')?.id).toBe('r');
    expect(tree.leaves().length).toBeGreaterThan(0);
    expect(tree.leafId).toBe('a');
  });

  it('equals a plain parent walk after any sequence of appends, forks, leaf moves and lookups', () => {
    type Step = { kind: 'append' | 'fork' | 'dangling' | 'self' | 'later' | 'leaf' | 'look'; pick: number };
    const kinds = fc.constantFrom<Step['kind']>('append', 'append', 'fork', 'dangling', 'self', 'later', 'leaf', 'look');
    const step: fc.Arbitrary<Step> = fc.record({ kind: kinds, pick: fc.nat() });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const entries: SessionEntry[] = [user('n0', null)];
        const tree = new SessionTree(entries);
        const handedOut: Array<{ path: readonly SessionEntry[]; was: string[] }> = [];
        steps.forEach((current, n) => {
          const nodes = entries.filter((entry) => entry.type !== 'leaf');
          const target = nodes[current.pick % nodes.length]?.id ?? 'n0';
          let added: SessionEntry | undefined;
          if (current.kind === 'append') added = user(`n${n + 1}`, tree.leafId);
          else if (current.kind === 'fork') added = user(`n${n + 1}`, target);
          else if (current.kind === 'dangling') added = user(`n${n + 1}`, `missing${n}`);
          else if (current.kind === 'self') added = user(`n${n + 1}`, `n${n + 1}`);
          else if (current.kind === 'later') added = user(`n${n + 1}`, `n${n + 2}`);
          else if (current.kind === 'leaf') added = leafMove(`l${n + 1}`, target);
          if (added) {
            entries.push(added);
            tree.add(added);
          }
          const asked = current.kind === 'look' ? target : tree.leafId;
          const path = tree.pathTo(asked);
          expect(ids(path)).toEqual(walkedPath(entries, asked));
          handedOut.push({ path, was: ids(path) });
          expect(ids(tree.pathTo(target))).toEqual(walkedPath(entries, target));
          // Every array handed out is still a root→entry path and only ever grew at its end.
          for (const { path: held, was } of handedOut) {
            expect(ids(held).slice(0, was.length)).toEqual(was);
            const last = held.at(-1);
            if (last) expect(ids(held)).toEqual(walkedPath(entries, last.id));
          }
          expect(tree.tipCount).toBe(tree.leaves().length);
        });
      }),
      { numRuns: 200 },
    );
  });

  it('a-tree-adopting-the-parsers-id-positions-equals-one-built-by-add: later parents and later leaf targets still count as missing', () => {
    type Step = { kind: 'append' | 'fork' | 'dangling' | 'self' | 'later' | 'leaf' | 'laterLeaf'; pick: number };
    const kinds = fc.constantFrom<Step['kind']>('append', 'fork', 'dangling', 'self', 'later', 'leaf', 'laterLeaf');
    fc.assert(
      fc.property(fc.array(fc.record({ kind: kinds, pick: fc.nat() }), { maxLength: 40 }), (steps) => {
        const entries: SessionEntry[] = [user('n0', null)];
        steps.forEach((current, n) => {
          const target = entries[current.pick % entries.length]?.id ?? 'n0';
          const id = `n${n + 1}`;
          if (current.kind === 'append') entries.push(user(id, entries.at(-1)?.id ?? null));
          else if (current.kind === 'fork') entries.push(user(id, target));
          else if (current.kind === 'dangling') entries.push(user(id, `missing${n}`));
          else if (current.kind === 'self') entries.push(user(id, id));
          else if (current.kind === 'later') entries.push(user(id, `n${n + 2}`));
          else if (current.kind === 'leaf') entries.push(leafMove(id, target));
          else entries.push(leafMove(id, `n${n + 2}`));
        });
        const built = new SessionTree(entries);
        const adopted = SessionTree.ofUniqueIds(entries, new Map(entries.map((entry, index) => [entry.id, index])));
        expect(adopted.leafId).toBe(built.leafId);
        expect(adopted.danglingEntries().map((entry) => entry.id)).toEqual(built.danglingEntries().map((entry) => entry.id));
        for (const entry of entries) {
          expect(ids(adopted.pathTo(entry.id))).toEqual(walkedPath(entries, entry.id));
          expect(adopted.parentOfNode(entry.id)?.id).toBe(built.parentOfNode(entry.id)?.id);
        }
        expect(adopted.tipCount).toBe(built.tipCount);
        const next = user('next', adopted.leafId);
        adopted.add(next);
        built.add(next);
        expect(ids(adopted.pathTo('next'))).toEqual(ids(built.pathTo('next')));
      }),
      { numRuns: 200 },
    );
  });
});
