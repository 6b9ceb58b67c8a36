// The deterministic list of entries a kill-9 writer appends for a seed, so the parent knows exactly what was attempted.
import type { NewEntry } from '../../src/core/session/newEntry';
import { fixtureEntries } from './fixtureEntries';
import { SeededRandom } from './seededRandom';

/** An entry with its id and timestamp preset (the writer passes them to append, the parent compares against them). */
export type PlannedEntry = NewEntry & { id: string; timestamp: string };

function bigOutput(random: SeededRandom, sources: readonly NewEntry[], targetBytes: number): string {
  // A multi-MB tool output made of real tool outputs, like `cat` of a large generated file.
  const parts: string[] = [];
  let size = 0;
  while (size < targetBytes) {
    const source = random.pick(sources);
    const text = source.type === 'toolResult' ? source.content : '';
    if (text === '') continue;
    parts.push(text);
    size += text.length;
  }
  return parts.join('\n');
}

/**
 * Entry `index` of the seed's workload: a window of the real fixture (varied sizes, tool call pairs) starting at a
 * seeded offset, with an occasional very large tool output: single writes of several MB are the ones a SIGKILL can
 * tear (the kernel checks for fatal signals between pages). Each entry has its own PRNG so it is computed alone.
 */
export function plannedEntry(seed: number, index: number): PlannedEntry {
  const all = fixtureEntries();
  const start = new SeededRandom(seed).int(0, all.length - 1);
  const random = new SeededRandom(seed * 100_003 + index);
  let fields = all[(start + index) % all.length] ?? { type: 'user', text: 'hello' };
  if (fields.type === 'toolResult' && random.chance(0.06)) {
    toolOutputs ??= all.filter((entry) => entry.type === 'toolResult' && entry.content.length > 200);
    fields = { ...fields, content: bigOutput(random, toolOutputs, random.int(256 * 1024, 4 * 1024 * 1024)) };
  }
  return { ...fields, id: `s${seed}e${index}`, timestamp: new Date(Date.UTC(2025, 0, 1) + index * 1000).toISOString() };
}

let toolOutputs: NewEntry[] | undefined;
