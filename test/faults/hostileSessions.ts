// Fault family (class 1): 2 MB hostile sessions (rings, cycles, damage), huge checkpoint lists and long lists of drops, pins and steps stay linear and bounded on every reader.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import { checkpoints, CHECKPOINT_FILES_LISTED } from '../../src/core/checkpoints/fileCheckpoints';
import { buildVerifyReport, formatVerifyReport } from '../../src/core/cli/verifyReport';
import type { SessionEntry } from '../../src/core/session/entries';
import { parseLog } from '../../src/core/session/logParser';
import { quarantinePath } from '../../src/core/session/quarantine';
import { SessionLog } from '../../src/core/session/sessionLog';
import { WARNINGS_SHOWN } from '../../src/core/session/warningSummary';
import { BlobStore } from '../../src/core/storage/blobStore';
import { droppedParts } from '../../src/core/context/contextDrops';
import { contextTurns } from '../../src/core/context/contextTurns';
import { summaryAppendix } from '../../src/core/compaction/summaryAppendix';
import { dropListing, toTurnViews } from '../../src/core/views/dropView';
import { toHistoryView } from '../../src/core/views/historyView';
import { HOSTILE_SHAPES } from '../support/hostileSessions';
import { passed, runCases, type CaseOutcome, type HostileCase } from './caseRunner';
import { runFamily } from './familyReport';
import { volatileFileIo } from './volatileFileIo';

const SIZE = 2 * 1024 * 1024;
/** Everything a reader says about one file, all warnings and reports together, stays under this. */
const REPORT_BOUND = 64 * 1024;

/** Non-blank lines after the header, as text. */
const linesOf = (text: string): string[] => text.split('\n').slice(1).filter((line) => line.trim() !== '');

/** Bytes of the original's lines that are neither in the repaired log nor in quarantine. */
function bytesLost(original: string, repaired: string, quarantine: string): number {
  const kept = new Set(linesOf(repaired));
  for (const line of quarantine.split('\n')) if (line) kept.add((JSON.parse(line) as { text: string }).text.replace(/\n$/, ''));
  return linesOf(original).filter((line) => !kept.has(line)).reduce((sum, line) => sum + Buffer.byteLength(line, 'utf8') + 1, 0);
}

function bounded(what: string, texts: readonly string[], outcome: CaseOutcome, maxItems = WARNINGS_SHOWN + 1): void {
  const total = texts.reduce((sum, text) => sum + text.length, 0);
  if (texts.length > maxItems) outcome.failures.push(`${what}: ${texts.length} warnings (at most ${maxItems})`);
  if (total > REPORT_BOUND) outcome.failures.push(`${what}: ${total} characters of warnings`);
}

function sessionCases(root: string): HostileCase[] {
  return Object.entries(HOSTILE_SHAPES).flatMap(([shape, make]) => {
    const bytes = make(SIZE);
    const file = (path: string): string => {
      const target = nodePath.join(root, `${shape}-${path}.jsonl`);
      writeFileSync(target, bytes);
      return target;
    };
    return [
      {
        name: `${shape} parse`,
        run: () => {
          const outcome = passed();
          const parsed = parseLog(bytes, 'hostile.jsonl');
          if (parsed.warnings.some((warning) => warning.length > 1000)) outcome.failures.push('a warning longer than 1000 characters');
          return Promise.resolve(outcome);
        },
      },
      {
        name: `${shape} writable open`,
        run: async () => {
          const outcome = passed();
          const target = file('open');
          const { log, warnings } = await SessionLog.open(target, { lock: false, io: volatileFileIo });
          await log.close();
          bounded('open', warnings, outcome);
          const quarantine = (() => {
            try {
              return readFileSync(quarantinePath(target), 'utf8');
            } catch {
              return '';
            }
          })();
          outcome.bytesLost = bytesLost(bytes.toString('utf8'), readFileSync(target, 'utf8'), quarantine);
          const again = await SessionLog.open(target, { readOnly: true });
          if (again.warnings.length > 0) outcome.failures.push(`the second open still warns: ${again.warnings[0]?.slice(0, 200)}`);
          return outcome;
        },
      },
      {
        name: `${shape} read-only open`,
        run: async () => {
          const outcome = passed();
          const { warnings } = await SessionLog.open(file('read'), { readOnly: true });
          bounded('read-only open', warnings, outcome);
          return outcome;
        },
      },
      {
        name: `${shape} verify`,
        run: async () => {
          const outcome = passed();
          const parsed = parseLog(bytes, 'hostile.jsonl');
          const report = await buildVerifyReport(parsed, new BlobStore(nodePath.join(root, 'blobs'), volatileFileIo));
          const size = JSON.stringify(report).length + formatVerifyReport(report).length;
          if (size > REPORT_BOUND) outcome.failures.push(`verify report of ${size} characters`);
          if (report.counts.corruptLines !== parsed.corrupt.length) outcome.failures.push('verify miscounts the damaged lines');
          return outcome;
        },
      },
    ];
  });
}

/** A branch of `requests` requests, each changing `files` files (names cycling through `distinct`). */
function branch(requests: number, files: number, distinct: number): SessionEntry[] {
  const path: SessionEntry[] = [];
  for (let n = 0; n < requests; n++) {
    path.push({ type: 'user', id: `u${n}`, parentId: path.at(-1)?.id ?? null, timestamp: 't', text: `request ${n}` });
    const fileChanges = Array.from({ length: files }, (_, f) => {
      const name = `src/f${(n * files + f) % distinct}.ts`;
      return { path: name, absolute: `/w/${name}`, before: null, after: null };
    });
    path.push({ type: 'toolResult', id: `r${n}`, parentId: `u${n}`, timestamp: 't', toolCallId: `c${n}`, toolName: 'write_file', content: 'ok', isError: false, fileChanges });
    if (n % 50 === 49) path.push({ type: 'fileRestore', id: `x${n}`, parentId: `r${n}`, timestamp: 't', targetId: `u${n - 10}`, changes: fileChanges.slice(0, 3) });
  }
  return path;
}

const CHECKPOINT_SHAPES: Array<[string, number, number, number]> = [
  ['400 requests × 50 files', 400, 50, 20_000],
  ['16,000 snapshots of distinct files', 16_000, 1, 16_000],
  ['16,000 snapshots of two files', 16_000, 1, 2],
  ['one request changing 16,000 files', 1, 16_000, 16_000],
];

function checkpointCases(): HostileCase[] {
  return CHECKPOINT_SHAPES.map(([name, requests, files, distinct]) => ({
    name: `checkpoints: ${name}`,
    run: () => {
      const outcome = passed();
      const path = branch(requests, files, distinct);
      const all = checkpoints(path);
      if (all.some((point) => point.files.length > CHECKPOINT_FILES_LISTED)) outcome.failures.push('a checkpoint lists more files than the cap');
      const views = [toHistoryView(path), toHistoryView(path)];
      if ((views[0]?.checkpoints?.length ?? 0) > 15) outcome.failures.push('the panel lists more than 15 checkpoints');
      if (views[0]?.checkpoints !== views[1]?.checkpoints) outcome.failures.push('a refresh rebuilt the checkpoint list');
      return Promise.resolve(outcome);
    },
  }));
}

/** Most characters any one view or request part built from a long session may take. */
const LIST_BOUND = 64 * 1024;

/** A session of `turns` requests, each with `steps` tool steps, and `extra` adding what follows each turn (a drop, a pin). */
function longSession(turns: number, steps: number, extra: (turn: number, path: SessionEntry[]) => void): SessionEntry[] {
  const path: SessionEntry[] = [];
  const add = (entry: Record<string, unknown>): void => {
    path.push({ parentId: path.at(-1)?.id ?? null, timestamp: 't', ...entry } as unknown as SessionEntry);
  };
  for (let turn = 0; turn < turns; turn++) {
    add({ type: 'user', id: `u${turn}`, text: `request ${turn}: ${'a long pasted request line '.repeat(4)}` });
    for (let step = 0; step < steps; step++) {
      add({ type: 'assistant', id: `a${turn}.${step}`, text: '', toolCalls: [{ id: 'call_0', name: 'read_file', arguments: '{}' }] });
      add({ type: 'toolResult', id: `r${turn}.${step}`, toolCallId: 'call_0', toolName: 'read_file', content: 'ok', isError: false });
    }
    extra(turn, path);
  }
  return path;
}

const LIST_SHAPES: Array<[string, () => SessionEntry[], number]> = [
  ['8,000 drops', () => longSession(8_000, 1, (turn, path) => path.push({ type: 'drop', id: `d${turn}`, parentId: path.at(-1)?.id ?? null, timestamp: 't', entryIds: [`u${turn}`], dropped: true, label: 'x', tokens: 1 })), 8_000],
  ['5,000 pins', () => longSession(5_000, 1, (turn, path) => path.push({ type: 'pin', id: `p${turn}`, parentId: path.at(-1)?.id ?? null, timestamp: 't', targetId: `u${turn}`, pinned: true })), 5_000],
  ['one turn of 20,000 tool steps', () => longSession(1, 20_000, () => undefined), 1],
];

/** Every list built from a long session stays within LIST_BOUND and counts what it left out. */
function listCases(): HostileCase[] {
  return LIST_SHAPES.map(([name, make, items]) => ({
    name: `lists: ${name}`,
    run: () => {
      const outcome = passed();
      const path = make();
      const turns = contextTurns(path);
      const parts = droppedParts(path, path.length - 1);
      const sizes: Array<[string, number]> = [
        ['the dropped parts', parts.join('\n').length],
        ['the appendix', summaryAppendix({ files: { read: [], modified: [] }, lastUserRequest: 'x', pinned: [], dropped: parts, maxChars: 8_000 }).length],
        ['/drop', dropListing(turns).length],
        ['the panel turns', JSON.stringify(toTurnViews(turns)).length],
        ['the panel history', JSON.stringify(toHistoryView(path)).length],
      ];
      for (const [what, size] of sizes) if (size > LIST_BOUND) outcome.failures.push(`${what}: ${size} characters`);
      if (name.includes('drops') && parts.length + parts.omitted !== items) outcome.failures.push(`the dropped parts count ${parts.length + parts.omitted} of ${items}`);
      const history = toHistoryView(path);
      if (name.includes('pins') && history.pins.length + (history.omitted?.pins ?? 0) !== items) outcome.failures.push('the pins miscount');
      return Promise.resolve(outcome);
    },
  }));
}

runFamily('hostile sessions', async () => {
  const root = mkdtempSync(nodePath.join(tmpdir(), 'faults-sessions-'));
  try {
    return await runCases('hostile sessions', [...sessionCases(root), ...checkpointCases(), ...listCases()], () => `${Object.keys(HOSTILE_SHAPES).length} 2 MB shapes × 4 readers, ${CHECKPOINT_SHAPES.length} checkpoint lists, ${LIST_SHAPES.length} long lists`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
