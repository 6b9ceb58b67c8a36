// Hostile session files of a given size (forward rings, short cycles, damaged lines) and healthy ones of the same size, as bytes.

type Row = Record<string, unknown>;

const header = (id: string): Row => ({ type: 'session', version: 1, id, timestamp: '2025-01-01T00:00:00.000Z' });

/** A user or assistant line with `text` filler, parent `parentId`. */
function messageRow(n: number, id: string, parentId: string | null, filler: string): Row {
  const timestamp = new Date(Date.UTC(2025, 0, 1, 0, 0, n)).toISOString();
  return n % 2 === 0 ? { type: 'user', id, parentId, timestamp, text: `request ${n} ${filler}` } : { type: 'assistant', id, parentId, timestamp, text: `answer ${n} ${filler}`, toolCalls: [] };
}

function linesToBytes(rows: Array<Row | string>): Buffer {
  return Buffer.from(`${rows.map((row) => (typeof row === 'string' ? row : JSON.stringify(row))).join('\n')}\n`, 'utf8');
}

/** How many entries of ~`lineBytes` make `bytes`. */
function entriesFor(bytes: number, lineBytes: number): number {
  return Math.max(4, Math.floor(bytes / lineBytes));
}

/** A healthy linear session of about `bytes` bytes. */
export function healthySession(bytes: number, lineBytes = 100): Buffer {
  const count = entriesFor(bytes, lineBytes);
  const filler = 'x'.repeat(Math.max(0, lineBytes - 110));
  const rows: Row[] = [header('healthy')];
  for (let n = 0; n < count; n++) rows.push(messageRow(n, `e${n}`, n === 0 ? null : `e${n - 1}`, filler));
  return linesToBytes(rows);
}

/** One ring through every entry, each pointing forward to the next (the last names the first). */
export function forwardRingSession(bytes: number, lineBytes = 100): Buffer {
  const count = entriesFor(bytes, lineBytes);
  const filler = 'x'.repeat(Math.max(0, lineBytes - 110));
  const rows: Row[] = [header('ring')];
  for (let n = 0; n < count; n++) rows.push(messageRow(n, `e${n}`, `e${(n + 1) % count}`, filler));
  return linesToBytes(rows);
}

/**
 * A mix of every kind of damage at `bytes`: a forward ring over the first third, two-entry cycles and
 * self-parents over the second, damaged (cut) lines, duplicate ids and parents naming later or missing
 * entries over the last.
 */
export function mixedHostileSession(bytes: number, lineBytes = 100): Buffer {
  const count = entriesFor(bytes, lineBytes);
  const filler = 'x'.repeat(Math.max(0, lineBytes - 110));
  const third = Math.floor(count / 3);
  const rows: Array<Row | string> = [header('mixed')];
  for (let n = 0; n < count; n++) {
    const id = `e${n}`;
    let parentId: string | null = n === 0 ? null : `e${n - 1}`;
    if (n < third) parentId = `e${(n + 1) % third}`;
    else if (n < 2 * third) parentId = n % 3 === 0 ? id : n % 3 === 1 ? `e${n + 1}` : `e${n - 1}`;
    else if (n % 5 === 0) parentId = `missing${n}`;
    else if (n % 5 === 1) parentId = `e${Math.min(count - 1, n + 7)}`;
    const row = messageRow(n, n % 11 === 0 && n > 2 * third ? `e${n - 1}` : id, parentId, filler);
    const text = JSON.stringify(row);
    rows.push(n % 7 === 0 && n > 2 * third ? text.slice(0, Math.floor(text.length / 2)) : row);
  }
  return linesToBytes(rows);
}

/** A chain whose entries, one in `every`, are rewritten by `mutate` (id, parent) before they are written. */
function chainWith(bytes: number, every: number, mutate: (n: number, count: number) => { id?: string; parentId?: string | null; raw?: string }, lineBytes = 100): Buffer {
  const count = entriesFor(bytes, lineBytes);
  const filler = 'x'.repeat(Math.max(0, lineBytes - 110));
  const rows: Array<Row | string> = [header('shaped')];
  for (let n = 0; n < count; n++) {
    const change = n > 0 && n % every === 0 ? mutate(n, count) : {};
    if (change.raw !== undefined) {
      rows.push(change.raw);
      continue;
    }
    rows.push(messageRow(n, change.id ?? `e${n}`, change.parentId === undefined ? (n === 0 ? null : `e${n - 1}`) : change.parentId, filler));
  }
  return linesToBytes(rows);
}

/** Every hostile shape the fault family and the benchmark load, by name, each made to about `bytes` bytes. */
export const HOSTILE_SHAPES: Readonly<Record<string, (bytes: number) => Buffer>> = {
  forwardRing: (bytes) => forwardRingSession(bytes),
  mixed: (bytes) => mixedHostileSession(bytes),
  ringToTheStart: (bytes) => chainWith(bytes, 1, (n) => ({ parentId: n === 1 ? `e${entriesFor(bytes, 100) - 1}` : `e${n - 1}` })),
  everySelfParent: (bytes) => chainWith(bytes, 1, (n) => ({ parentId: `e${n}` })),
  manyTwoCycles: (bytes) => chainWith(bytes, 2, (n) => ({ parentId: `e${n + 1}` })),
  everyParentMissing: (bytes) => chainWith(bytes, 1, (n) => ({ parentId: `gone${n}` })),
  everyIdReused: (bytes) => chainWith(bytes, 1, () => ({ id: 'same' })),
  everyOtherLineCut: (bytes) => chainWith(bytes, 2, (n) => ({ raw: JSON.stringify(messageRow(n, `e${n}`, `e${n - 1}`, '')).slice(0, 30) })),
  hugeIds: (bytes) => chainWith(bytes, 50, (n) => ({ id: `${'i'.repeat(4000)}${n}`, parentId: `${'p'.repeat(4000)}${n}` }), 100),
};
