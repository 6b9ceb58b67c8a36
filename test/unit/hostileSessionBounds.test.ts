// Hostile sessions (forward rings, cycles, damage) load with warnings and reports bounded in size, and checkpoints stay linear.
import { writeFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkpoints, CHECKPOINT_FILES_LISTED } from '../../src/core/checkpoints/fileCheckpoints';
import { buildVerifyReport, formatVerifyReport } from '../../src/core/cli/verifyReport';
import type { SessionEntry } from '../../src/core/session/entries';
import { parseLog } from '../../src/core/session/logParser';
import { SessionLog } from '../../src/core/session/sessionLog';
import { WARNINGS_SHOWN } from '../../src/core/session/warningSummary';
import { BlobStore } from '../../src/core/storage/blobStore';
import { nodeFileIo } from '../../src/core/storage/fileIo';
import { forwardRingSession, mixedHostileSession } from '../support/hostileSessions';
import { tempDir } from '../support/sessionTempDir';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

const totalLength = (texts: readonly string[]): number => texts.reduce((sum, text) => sum + text.length, 0);

describe('a 2 MB session whose parents form one forward ring', () => {
  it('parses with one short warning per set-aside line, never the whole ring', () => {
    const parsed = parseLog(forwardRingSession(2_000_000), 'ring.jsonl');
    expect(parsed.corrupt.length).toBeGreaterThan(19_000);
    expect(Math.max(...parsed.warnings.map((warning) => warning.length))).toBeLessThan(400);
    expect(parsed.warnings[0]).toMatch(/closing a loop of parents \(e0 → e1 → e2 → e3 → … \(\d+ entries\)\)/);
  });

  it('opens writable with a screenful of warnings, the rest counted, and every line kept in quarantine', async () => {
    const file = nodePath.join(dir, 'ring.jsonl');
    writeFileSync(file, forwardRingSession(2_000_000));
    const { log, warnings, damage } = await SessionLog.open(file, { lock: false });
    expect(warnings.length).toBe(WARNINGS_SHOWN + 1);
    expect(warnings.at(-1)).toMatch(new RegExp(`and ${damage.corruptLines - WARNINGS_SHOWN} more damaged lines`));
    expect(totalLength(warnings)).toBeLessThan(20_000);
    await log.close();
  });

  it('verify reports counts and the first few of each list', async () => {
    const parsed = parseLog(mixedHostileSession(2_000_000), 'mixed.jsonl');
    const report = await buildVerifyReport(parsed, new BlobStore(nodePath.join(dir, 'blobs'), nodeFileIo));
    expect(report.counts.corruptLines).toBe(parsed.corrupt.length);
    expect(report.corruptLines.length).toBe(WARNINGS_SHOWN);
    expect(report.counts.danglingParents).toBeGreaterThan(WARNINGS_SHOWN);
    expect(report.danglingParents.length).toBe(WARNINGS_SHOWN);
    const text = formatVerifyReport(report);
    expect(text).toMatch(/… and \d+ more corrupt lines \(\d+ in all\)/);
    expect(JSON.stringify(report).length + text.length).toBeLessThan(40_000);
  });
});

describe('checkpoints with many snapshots', () => {
  function branch(requests: number, filesPerRequest: number): SessionEntry[] {
    const path: SessionEntry[] = [];
    for (let n = 0; n < requests; n++) {
      path.push({ type: 'user', id: `u${n}`, parentId: path.at(-1)?.id ?? null, timestamp: 't', text: `request ${n}` });
      const fileChanges = Array.from({ length: filesPerRequest }, (_, f) => ({ path: `f${(n * filesPerRequest + f) % 16_000}.ts`, absolute: `/w/f${(n * filesPerRequest + f) % 16_000}.ts`, before: null, after: null }));
      path.push({ type: 'toolResult', id: `r${n}`, parentId: `u${n}`, timestamp: 't', toolCallId: `c${n}`, toolName: 'write_file', content: 'ok', isError: false, fileChanges });
    }
    return path;
  }

  it('names at most a fixed number of files per checkpoint and counts the rest, in first-change order', () => {
    const points = checkpoints(branch(16_000, 1));
    expect(points.length).toBe(16_000);
    expect(points.at(-1)?.fileCount).toBe(16_000);
    expect(points.at(-1)?.files.length).toBe(CHECKPOINT_FILES_LISTED);
    expect(points.at(-1)?.files.slice(0, 2)).toEqual(['f0.ts', 'f1.ts']);
    expect(points[0]?.files).toEqual(['f15999.ts']);
  });

  it('moves a file changed again earlier to the front', () => {
    const path = branch(3, 2).map((entry) => (entry.type === 'toolResult' && entry.id === 'r0' ? { ...entry, fileChanges: [{ path: 'f5.ts', absolute: '/w/f5.ts', before: null, after: null }] } : entry));
    expect(checkpoints(path).at(-1)?.files).toEqual(['f5.ts', 'f2.ts', 'f3.ts', 'f4.ts']);
  });

  it('stops after the requested number of checkpoints', () => {
    expect(checkpoints(branch(400, 50), 15).length).toBe(15);
  });
});
