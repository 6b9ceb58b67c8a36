// How a fault family reports: one summary line on stdout, details of failures on stderr, exit code 1 on failure.

export interface FamilyResult {
  /** The one line the suite prints, e.g. "kill-9: 200 runs, 0 committed entries lost, 3 torn tails dropped". */
  line: string;
  /** Human-readable descriptions of every failed check (empty when the family passed). */
  failures: string[];
}

/** Collects failures with a cap so one systematic bug does not print thousands of lines. */
export class FailureList {
  readonly items: string[] = [];
  private dropped = 0;

  add(message: string): void {
    if (this.items.length < 40) this.items.push(message);
    else this.dropped++;
  }

  get count(): number {
    return this.items.length + this.dropped;
  }

  list(): string[] {
    return this.dropped > 0 ? [...this.items, `... and ${this.dropped} more`] : [...this.items];
  }
}

/** Entry-point wrapper: runs the family, prints its line, and never lets an exception escape unreported. */
export function runFamily(name: string, run: () => Promise<FamilyResult>): void {
  run()
    .then((result) => {
      for (const failure of result.failures) process.stderr.write(`  ${failure}\n`);
      process.stdout.write(`${result.line}\n`);
      process.exitCode = result.failures.length > 0 ? 1 : 0;
    })
    .catch((error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.stdout.write(`${name}: crashed (${error instanceof Error ? error.message : String(error)})\n`);
      process.exitCode = 1;
    });
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
