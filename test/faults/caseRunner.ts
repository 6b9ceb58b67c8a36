// Runs a family's hostile cases one by one with a hang bound, counting crashes, hangs and bytes lost, and the process's peak memory.
import { FailureList, messageOf, type FamilyResult } from './familyReport';

/** What one case found: failed checks, and bytes of user data it lost (kept nowhere after the operation). */
export interface CaseOutcome {
  failures: string[];
  bytesLost: number;
}

export interface HostileCase {
  name: string;
  run: () => Promise<CaseOutcome>;
}

/** A case still running after this long is a hang (an endless synchronous loop is caught by the harness's own limit). */
export const HANG_BOUND_MS = Number(process.env.HOSTILE_HANG_MS ?? 10_000);

export const passed = (): CaseOutcome => ({ failures: [], bytesLost: 0 });

/** Peak resident memory of this process so far, in MB. */
export function peakMemoryMb(): number {
  return Math.round(process.resourceUsage().maxRSS / 1024);
}

/**
 * Runs every case, each bounded by HANG_BOUND_MS, and builds the family's line:
 * "<family>: N cases, C crashes, H hangs past 10 s, B bytes lost, peak memory M MB[, extra]".
 */
export async function runCases(family: string, cases: readonly HostileCase[], extra?: () => string): Promise<FamilyResult> {
  const failures = new FailureList();
  let crashes = 0;
  let hangs = 0;
  let bytesLost = 0;
  for (const hostile of cases) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const hang = new Promise<'hang'>((resolve) => (timer = setTimeout(() => resolve('hang'), HANG_BOUND_MS)));
    try {
      const outcome = await Promise.race([hostile.run(), hang]);
      if (outcome === 'hang') {
        hangs++;
        failures.add(`${hostile.name}: still running after ${HANG_BOUND_MS / 1000} s`);
        continue;
      }
      bytesLost += outcome.bytesLost;
      for (const failure of outcome.failures) failures.add(`${hostile.name}: ${failure}`);
      if (outcome.bytesLost > 0) failures.add(`${hostile.name}: ${outcome.bytesLost} bytes lost`);
    } catch (error) {
      crashes++;
      failures.add(`${hostile.name}: crashed: ${messageOf(error)}`);
    } finally {
      clearTimeout(timer);
    }
  }
  const more = extra ? `, ${extra()}` : '';
  return {
    line: `${family}: ${cases.length} cases, ${crashes} crashes, ${hangs} hangs past ${HANG_BOUND_MS / 1000} s, ${bytesLost} bytes lost, peak memory ${peakMemoryMb()} MB${more}`,
    failures: failures.list(),
  };
}
