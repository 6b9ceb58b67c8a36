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
