// The count cache beside a session log: restored when the session opens; after a request only the counts new since the last save are appended.
import type { FileIo } from '../storage/fileIo';
import { CountCache } from './countCache';

/**
 * The file holds one JSON record per line (`{"version":1,"counts":{…}}`): the first is a whole cache, each later one
 * what a save added. Rewriting the whole cache after every request cost time in proportion to the session (131 ms at
 * 100k entries); appending costs what the request counted. Counts are derived data: a line a crash cut short, or any
 * damaged line, is skipped (its entries are counted again), and the next save writes the file whole.
 */
export class CountCacheFile {
  private constructor(
    readonly cache: CountCache,
    private readonly io: FileIo,
    readonly file: string,
    /** False when the file is missing or was damaged: the next save writes it whole. */
    private intact: boolean,
  ) {}

  /** Restores the counts in `file` (a missing or damaged one restores what it can, or nothing). */
  static async load(io: FileIo, file: string): Promise<CountCacheFile> {
    let text: string;
    try {
      text = (await io.readFile(file)).toString('utf8');
    } catch {
      return new CountCacheFile(new CountCache(), io, file, false);
    }
    const { cache, intact } = CountCacheFile.parse(text);
    return new CountCacheFile(cache, io, file, intact);
  }

  /** The counts of a file's text; `intact` is false when a line could not be read. */
  static parse(text: string): { cache: CountCache; intact: boolean } {
    const cache = new CountCache();
    let intact = true;
    let records = 0;
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      let json: unknown;
      try {
        json = JSON.parse(line) as unknown;
      } catch {
        intact = false;
        continue;
      }
      if (cache.restore(json)) records++;
      else intact = false;
    }
    return { cache, intact: intact && records > 0 };
  }

  /** Appends what was counted since the last save; writes the whole cache when the file is missing or damaged. */
  async save(): Promise<void> {
    if (!this.intact) {
      const whole = JSON.stringify(this.cache.toJSON());
      this.cache.markSaved();
      await this.io.writeFileAtomic(this.file, whole);
      this.intact = true;
      return;
    }
    const added = this.cache.takeUnsaved();
    if (!added) return;
    try {
      await this.io.appendDurable(this.file, `\n${JSON.stringify(added)}`);
    } catch (error) {
      // Nothing is lost: the next save writes the file whole.
      this.intact = false;
      throw error;
    }
  }
}
