// A long path folded from nothing keeps no journal for its start: branch switches before, inside and after that start read every marker as a fresh fold of the same path does.
import { describe, expect, it } from 'vitest';
import { pathMarkers, type PathMarkers } from '../../src/core/context/pathMarkers';
import type { SessionEntry } from '../../src/core/session/entries';
import { JOURNALED_TAIL } from '../../src/core/session/pathFold';
import { PathBuilder } from '../support/sessionPathBuilder';

/** Everything the markers answer about a path, in plain values. */
function answers(markers: PathMarkers, path: readonly SessionEntry[]): unknown {
  const ids = path.map((entry) => entry.id);
  return {
    dropped: ids.filter((id) => markers.isDropped(id)),
    pruned: ids.filter((id) => markers.isPruned(id)),
    pinned: markers.pinnedIds().sort(),
    pinnedAt: markers.pinnedIds().sort().map((id) => markers.pinnedAt(id)),
    compaction: markers.compaction ? { id: markers.compaction.entry.id, index: markers.compaction.index, cut: markers.compaction.cut } : null,
    restored: [...markers.restored()].sort(),
    latestDrop: markers.latestDrop()?.id,
    labels: markers.labelsAfter(-1).map((label) => label.id),
  };
}

/** The same path as new objects: its own fold, read from nothing. */
function freshAnswers(path: readonly SessionEntry[]): unknown {
  const copy = structuredClone(path) as SessionEntry[];
  return answers(pathMarkers(copy), copy);
}

/** A session of `turns` turns with drops, undrops, pins, prunes and compactions along it, and a branch every 37 turns. */
function longSession(turns: number): { builder: PathBuilder; leaves: string[] } {
  const builder = new PathBuilder();
  const leaves: string[] = [];
  const messages: string[] = [];
  for (let turn = 0; turn < turns; turn++) {
    builder.user(`u${turn}`);
    builder.assistant(`a${turn}`, [`c${turn}`]);
    builder.tool(`t${turn}`, `c${turn}`);
    builder.assistant(`b${turn}`);
    messages.push(`u${turn}`, `a${turn}`, `t${turn}`, `b${turn}`);
    if (turn % 5 === 3) builder.drop(`d${turn}`, messages.slice(-8, -4));
    if (turn % 11 === 7) builder.drop(`r${turn}`, messages.slice(-24, -20), false);
    if (turn % 13 === 5) builder.pin(`p${turn}`, `u${turn - 2}`, turn % 2 === 1);
    if (turn % 7 === 2) builder.prune(`x${turn}`, [`t${turn - 1}`]);
    if (turn % 17 === 16) builder.compaction(`k${turn}`, `u${turn - 3}`);
    if (turn % 37 === 36) {
      leaves.push(builder.leaf as string);
      builder.at(`b${turn - 20}`);
    }
  }
  leaves.push(builder.leaf as string);
  return { builder, leaves };
}

describe('a path folded from nothing without a journal for its start', () => {
  it('answers as a fresh fold on every path it is moved to: far back, within the journaled end, forward again', () => {
    const { builder, leaves } = longSession(240);
    const longest = builder.path(leaves.at(-1));
    expect(longest.length).toBeGreaterThan(4 * JOURNALED_TAIL);
    const byId = new Map(builder.entries.map((entry) => [entry.id, entry]));
    // Leaves in an order that moves back before the unjournaled start, inside the journaled end, and forward.
    const near = longest[longest.length - 10]?.id as string;
    const inside = longest[longest.length - JOURNALED_TAIL + 5]?.id as string;
    const before = longest[longest.length - JOURNALED_TAIL - 40]?.id as string;
    const order = [leaves.at(-1), near, inside, leaves.at(-1), before, leaves[0], leaves[2], 'u3', leaves.at(-1), near, leaves[1], leaves.at(-1)];
    for (const leaf of order) {
      expect(byId.has(leaf as string)).toBe(true);
      const path = builder.path(leaf);
      expect(answers(pathMarkers(path), path)).toEqual(freshAnswers(path));
    }
  });

  it('markers handed out for one path stay true after the fold moved far back for another', () => {
    const { builder, leaves } = longSession(160);
    const longest = builder.path(leaves.at(-1));
    const early = builder.path('b10');
    const markers = pathMarkers(longest);
    const expected = answers(markers, longest);
    expect(answers(pathMarkers(early), early)).toEqual(freshAnswers(early));
    expect(answers(markers, longest)).toEqual(expected);
    expect(answers(markers, longest)).toEqual(freshAnswers(longest));
  });
});
