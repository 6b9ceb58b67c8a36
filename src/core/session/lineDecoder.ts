// Decodes a session file's lines: lines of plain ASCII as slices of one Latin-1 copy of the file, the others as UTF-8.
import { isAscii } from 'node:buffer';

/**
 * The file is looked at BLOCK bytes at a time, and a block holding a byte above 0x7f again LEAF bytes at a time; the
 * lines touching a leaf that holds one are decoded as UTF-8. At 100k entries (27 MB, such bytes spread through it) this
 * takes 3–8 ms, mostly making the 23k subarrays; halving from the whole file, which looks at every byte once per level,
 * took 8–9 ms. The Latin-1 copy itself takes 12–19 ms there.
 */
const BLOCK = 4096;
const LEAF = 512;
/** Blocks looked at before the share of wide ones may end the search (see collectWide). */
const SAMPLE = 64;

/**
 * Files from this size on are read through one Latin-1 copy: Node makes a Latin-1 string over about a megabyte
 * (EXTERN_APEX in its src/string_bytes.cc) an external string. A smaller copy is a large object on the V8 heap, which
 * cost more to make than the lines it saves (0.2 ms for 270 kB) and is decoded line by line instead.
 */
export const WHOLE_FROM = 1 << 20;

/**
 * The text of each line of `data` from `from` on. Decoding line by line makes a string on the young heap per line
 * (2.7 MB at 10k entries), which the collector's minor collections pay for while the parsed session around them is
 * still young. From WHOLE_FROM bytes on, one Latin-1 copy of the file is an external string (off the V8 heap) and a
 * line of it is a slice (a small header). Latin-1 reads a byte as one character, which is the line's UTF-8 text only
 * where every byte is below 0x80: the blocks holding other bytes are found with `isAscii` (see BLOCK), and a line
 * touching one is decoded as UTF-8. A file most of whose blocks hold such bytes is decoded line by line.
 */
export class LineDecoder {
  /** The Latin-1 copy of data[from, end), or undefined when the file is decoded line by line. */
  private readonly whole: string | undefined;
  /** Byte ranges [start, end) that hold a byte above 0x7f, ascending and disjoint, flattened. */
  private readonly wide: number[] = [];
  /** The first range of `wide` that may still reach a line (lines are asked for in ascending order). */
  private next = 0;

  constructor(
    private readonly data: Buffer,
    private readonly from: number,
  ) {
    if (data.length - from < WHOLE_FROM) return;
    if (!this.collectWide(from, data.length)) {
      this.wide.length = 0;
      return;
    }
    this.whole = data.toString('latin1', from);
  }

  /** The text of data[start, end); calls come with ascending `start`. */
  text(start: number, end: number): string {
    if (this.whole === undefined) return this.data.toString('utf8', start, end);
    const wide = this.wide;
    while (this.next < wide.length && (wide[this.next + 1] as number) <= start) this.next += 2;
    if (this.next < wide.length && (wide[this.next] as number) < end) return this.data.toString('utf8', start, end);
    return this.whole.slice(start - this.from, end - this.from);
  }

  /**
   * Finds the wide blocks of data[start, end): BLOCK bytes at a time, and a wide block again in LEAF-byte parts. False
   * as soon as most blocks seen (after the first SAMPLE) are wide, as in a session written in Chinese: the copy would
   * serve few lines, and the leaves cost a call each (a 33 MB file of CJK text parsed 20–25 % slower with them).
   */
  private collectWide(start: number, end: number): boolean {
    let blocks = 0;
    let wideBlocks = 0;
    for (let block = start; block < end; block += BLOCK) {
      const blockEnd = Math.min(end, block + BLOCK);
      blocks++;
      if (isAscii(this.data.subarray(block, blockEnd))) continue;
      wideBlocks++;
      if (blocks >= SAMPLE && wideBlocks * 2 > blocks) return false;
      for (let leaf = block; leaf < blockEnd; leaf += LEAF) {
        const leafEnd = Math.min(blockEnd, leaf + LEAF);
        if (isAscii(this.data.subarray(leaf, leafEnd))) continue;
        if (this.wide.length > 0 && this.wide[this.wide.length - 1] === leaf) this.wide[this.wide.length - 1] = leafEnd;
        else this.wide.push(leaf, leafEnd);
      }
    }
    return true;
  }
}
