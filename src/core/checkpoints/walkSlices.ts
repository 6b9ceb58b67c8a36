// How a snapshot shares the event loop: the work done since its last pause is counted (entries, .gitignore matching steps, bytes read), and it pauses once any count reaches its slice or a slice of time has passed.
import { performance } from 'node:perf_hooks';

/** Work done between two pauses, by kind. */
export interface SliceWork {
  /** Folder entries listed, judged or visited, and files read. */
  entries: number;
  /** Steps of .gitignore matching (see ignorePatterns.ts). */
  matchSteps: number;
  /** Bytes of files read and hashed synchronously. */
  bytes: number;
}

/**
 * The most of each kind of work a slice does before it pauses (a slice may pass one by a single item's work: one
 * entry's matching budget, one file read synchronously). Each is a few milliseconds at most on a slow machine.
 */
export const SLICE_LIMITS: Readonly<SliceWork> = { entries: 256, matchSteps: 50_000, bytes: 2 * 1024 * 1024 };

/** A slice also ends after this long, whatever it counted (a slow disk makes each entry cost more). */
const SLICE_MS = 2;

/** How the walk lets the event loop run; told the work of the slice that ends (tests observe it). */
export type Pause = (work: Readonly<SliceWork>) => Promise<void>;

export const nextTurn: Pause = () => new Promise((resolve) => setImmediate(resolve));

/** Counts a snapshot's work and says when to pause. */
export class WalkSlicer {
  private work: SliceWork = { entries: 0, matchSteps: 0, bytes: 0 };
  private start = performance.now();
  private calls = 0;

  constructor(private readonly pauseWith: Pause = nextTurn) {}

  count(kind: keyof SliceWork, amount = 1): void {
    this.work[kind] += amount;
  }

  /** True when the slice has done its share of some kind of work, or run its time (the clock is read every 16th call). */
  due(): boolean {
    const work = this.work;
    if (work.entries >= SLICE_LIMITS.entries || work.matchSteps >= SLICE_LIMITS.matchSteps || work.bytes >= SLICE_LIMITS.bytes) return true;
    return (++this.calls & 15) === 0 && performance.now() - this.start >= SLICE_MS;
  }

  /** Ends the slice: lets the event loop run, then starts the next one. */
  async pause(): Promise<void> {
    const done = this.work;
    this.work = { entries: 0, matchSteps: 0, bytes: 0 };
    await this.pauseWith(done);
    this.start = performance.now();
  }
}
