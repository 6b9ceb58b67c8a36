// A big session file's lines decode exactly as UTF-8 wherever their non-ASCII bytes fall (block edges, split characters, BOMs, CRLF).
import { describe, expect, it } from 'vitest';
import { LineDecoder, WHOLE_FROM } from '../../src/core/session/lineDecoder';
import { parseLog } from '../../src/core/session/logParser';
import { SCHEMA_VERSION } from '../../src/core/session/entries';

/** Where each line of data[from, …) starts and ends (without its newline), the last complete line included. */
function lineRanges(data: Buffer, from: number): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  for (let start = from, end = data.indexOf(0x0a, start); end >= 0; start = end + 1, end = data.indexOf(0x0a, start)) ranges.push([start, end]);
  return ranges;
}

/** A deterministic stream of numbers in [0, 1). */
function randomFrom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

const WIDE = ['é', 'ü', '€', '中文', '😀', '\u{FEFF}', 'Ω', '\u00a0'];

/** A file of over WHOLE_FROM bytes of lines, some holding non-ASCII text at random places. */
function mixedFile(seed: number, wideShare: number): Buffer {
  const random = randomFrom(seed);
  const lines: string[] = [];
  let size = 0;
  while (size < WHOLE_FROM * 1.3) {
    const length = Math.floor(random() * 900);
    let text = 'x'.repeat(length);
    if (random() < wideShare) {
      const at = Math.floor(random() * (length + 1));
      text = text.slice(0, at) + (WIDE[Math.floor(random() * WIDE.length)] as string) + text.slice(at);
    }
    if (random() < 0.05) text += '\r';
    lines.push(text);
    size += Buffer.byteLength(text) + 1;
  }
  return Buffer.from(`${lines.join('\n')}\n`, 'utf8');
}

describe('LineDecoder', () => {
  it.each([
    ['a few non-ASCII lines', 1, 0.02],
    ['many', 2, 0.4],
    ['all of them', 3, 1],
    ['none', 4, 0],
  ])('gives every line its UTF-8 text (%s)', (_name, seed, share) => {
    const data = mixedFile(seed, share);
    for (const from of [0, 7]) {
      const decoder = new LineDecoder(data, from);
      const ranges = lineRanges(data, from);
      expect(ranges.length).toBeGreaterThan(1000);
      for (const [start, end] of ranges) expect(decoder.text(start, end)).toBe(data.toString('utf8', start, end));
    }
  });

  it('decodes a character whose bytes straddle a block edge, and the ASCII lines beside it', () => {
    // Lines sized so a four-byte character sits across byte 4096 (a block edge) and across byte 4096 * 2 + 512.
    const head = 'a'.repeat(4094);
    const data = Buffer.from(`${head}😀b\n${'c'.repeat(4096 + 400)}\n${'d'.repeat(100)}😀\n${'e'.repeat(WHOLE_FROM)}\n`, 'utf8');
    const decoder = new LineDecoder(data, 0);
    for (const [start, end] of lineRanges(data, 0)) expect(decoder.text(start, end)).toBe(data.toString('utf8', start, end));
  });

  it('decodes a small file line by line, the same', () => {
    const data = Buffer.from('héllo\nworld\n€\n', 'utf8');
    const decoder = new LineDecoder(data, 0);
    expect(lineRanges(data, 0).map(([start, end]) => decoder.text(start, end))).toEqual(['héllo', 'world', '€']);
  });
});

describe('parseLog on a file of over a megabyte', () => {
  it('reads non-ASCII entries, a mid-file byte-order mark and corrupt lines as a small file would', () => {
    const random = randomFrom(9);
    const header = JSON.stringify({ type: 'session', version: SCHEMA_VERSION, id: 's', timestamp: '2026-01-01T00:00:00.000Z' });
    const lines: string[] = [header];
    const texts: string[] = [];
    let parentId: string | null = null;
    let size = 0;
    for (let index = 0; size < WHOLE_FROM * 1.2; index++) {
      const text = `${'word '.repeat(Math.floor(random() * 120))}${random() < 0.1 ? (WIDE[index % WIDE.length] as string) : ''}`;
      const line = JSON.stringify({ type: 'user', id: `u${index}`, parentId, timestamp: '2026-01-01T00:00:00.000Z', text });
      // Every 500th line starts with a byte-order mark (an editor's), every 700th is cut short (corrupt).
      if (index % 700 === 699) {
        lines.push(line.slice(0, 30));
        continue;
      }
      lines.push(index % 500 === 499 ? `\u{FEFF}${line}` : line);
      size += Buffer.byteLength(line) + 1;
      texts.push(text);
      parentId = `u${index}`;
    }
    const data = Buffer.from(`${lines.join('\n')}\n`, 'utf8');
    expect(data.length).toBeGreaterThan(WHOLE_FROM);
    const parsed = parseLog(data, 'big');
    expect(parsed.entries.map((entry) => (entry.type === 'user' ? entry.text : ''))).toEqual(texts);
    expect(parsed.corrupt.length).toBe(Math.floor((lines.length - 1) / 700));
    expect(parsed.corrupt.every((bad) => bad.reason === 'not valid JSON')).toBe(true);
    expect(Buffer.concat(parsed.corrupt.map((bad) => bad.raw)).toString('utf8')).toBe(lines.filter((line) => !line.endsWith('}')).map((line) => `${line}\n`).join(''));
  });
});
