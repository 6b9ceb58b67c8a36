// Fault family: hostile session and pi files (self-parents, parent loops, BOMs, unknown kinds, damaged middle lines, huge lines) on every read path.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import { createInterface } from 'node:readline';
import { buildVerifyReport, formatVerifyReport } from '../../src/core/cli/verifyReport';
import { buildContext } from '../../src/core/context/contextBuilder';
import { importPiFile } from '../../src/core/import/piImport';
import { isMessageEntry, type SessionEntry } from '../../src/core/session/entries';
import { parseLog } from '../../src/core/session/logParser';
import type { NewEntry } from '../../src/core/session/newEntry';
import { SessionLog } from '../../src/core/session/sessionLog';
import { BlobStore } from '../../src/core/storage/blobStore';
import { validateChatMessages } from '../support/validateChatMessages';
import { FailureList, messageOf, runFamily, type FamilyResult } from './familyReport';
import { fixtureEntries } from './fixtureEntries';
import { volatileFileIo } from './volatileFileIo';

/** A case still running after this long is a hang: its worker is stopped and the next case goes on in a new one. */
const HANG_BOUND_MS = Number(process.env.HOSTILE_HANG_MS ?? 10_000);
const ENTRIES = 40;
const HUGE = 8 * 1024 * 1024;
const BOM = '\uFEFF';
/** The script runs its cases in a child of itself, started with this flag. */
const CHILD_FLAG = '--hostile-cases';

type Json = Record<string, unknown>;

/** A hostile file in the making: its rows (objects, or raw text for lines that are no JSON object), what must stay on the path, what must be set aside. */
interface Draft {
  rows: Array<Json | string>;
  /** Ids that must be on the current path after loading, in order. */
  keep: string[];
  /** Lines the loader must set aside, each with one warning. */
  setAside: number;
  bom: boolean;
}

const at = (draft: Draft, id: string): Json => {
  const row = draft.rows.find((item) => typeof item !== 'string' && item.id === id);
  if (!row || typeof row === 'string') throw new Error(`no row ${id}`);
  return row;
};
const insertAfter = (draft: Draft, id: string, row: Json | string): void => {
  draft.rows.splice(draft.rows.indexOf(at(draft, id)) + 1, 0, row);
};
const drop = (draft: Draft, id: string): void => {
  draft.keep = draft.keep.filter((kept) => kept !== id);
  draft.setAside++;
};
const keepAfter = (draft: Draft, id: string, added: string): void => {
  draft.keep.splice(draft.keep.indexOf(id) + 1, 0, added);
};
/** A line cut in half, as a crash or a bad disk leaves it: no longer JSON. */
const damage = (draft: Draft, id: string): void => {
  const row = at(draft, id);
  const text = JSON.stringify(row);
  draft.rows[draft.rows.indexOf(row)] = text.slice(0, Math.floor(text.length / 2));
  drop(draft, id);
};
const future = (id: string, parentId: string): Json => ({ type: 'futureKind', id, parentId, timestamp: 't', payload: { deep: [1, { a: null }] } });

/** Hostile inputs, each applied to a linear log h0 → … → h39 (in pi's tree format for imports: p0 → … → p39). */
const MUTATIONS: Record<string, (draft: Draft, p: (n: number) => string) => void> = {
  selfParentMiddle: (d, p) => ((at(d, p(20)).parentId = p(20)), drop(d, p(20))),
  selfParentFirst: (d, p) => ((at(d, p(0)).parentId = p(0)), drop(d, p(0))),
  selfParentLast: (d, p) => ((at(d, p(39)).parentId = p(39)), drop(d, p(39))),
  cycleOfTwo: (d, p) => ((at(d, p(20)).parentId = p(21)), drop(d, p(20))),
  cycleOfThree: (d, p) => ((at(d, p(20)).parentId = p(22)), drop(d, p(20))),
  ringThroughEveryEntry: (d, p) => ((at(d, p(1)).parentId = p(39)), drop(d, p(1))),
  ringThroughReusedId: (d, p) => (insertAfter(d, p(39), { ...at(d, p(30)), id: p(10), parentId: p(39) }), d.setAside++),
  byteOrderMark: (d) => void (d.bom = true),
  byteOrderMarkAndDamage: (d, p) => ((d.bom = true), damage(d, p(20))),
  unknownKindMiddle: (d, p) => (insertAfter(d, p(20), future('fx', p(20))), (at(d, p(21)).parentId = 'fx'), keepAfter(d, p(20), 'fx')),
  unknownKindLast: (d, p) => (d.rows.push(future('fx', p(39))), d.keep.push('fx')),
  unknownKindWithoutId: (d, p) => (insertAfter(d, p(20), '{"type":"futureKind","payload":1}'), d.setAside++),
  prototypeKind: (d, p) => (insertAfter(d, p(20), { ...future('px', p(20)), type: '__proto__' }), (at(d, p(21)).parentId = 'px'), keepAfter(d, p(20), 'px')),
  damagedMiddle: (d, p) => damage(d, p(20)),
  damagedTwo: (d, p) => (damage(d, p(12)), damage(d, p(27))),
  damagedAdjacent: (d, p) => (damage(d, p(20)), damage(d, p(21))),
  garbageLine: (d, p) => (insertAfter(d, p(20), '\u0000garbage {{{ ]]'), d.setAside++),
  hugeGarbageLine: (d, p) => (insertAfter(d, p(20), 'x'.repeat(HUGE)), d.setAside++),
  hugeValidLine: (d, p) => {
    const row = at(d, p(20));
    const text = 'y'.repeat(HUGE);
    if ('message' in row) row.message = { role: 'user', content: [{ type: 'text', text }] };
    else Object.assign(row, { type: 'user', text });
  },
  deepNesting: (d, p) => (insertAfter(d, p(20), '['.repeat(1_000_000)), d.setAside++),
  leafMovesToItself: (d, p) => void d.rows.push({ type: 'leaf', id: 'L1', parentId: p(39), timestamp: 't', targetId: 'L1', reason: 'switch' }),
  parentIsLeafMove: (d, p) => (insertAfter(d, p(20), { type: 'leaf', id: 'L1', parentId: p(20), timestamp: 't', targetId: p(20), reason: 'switch' }), void (at(d, p(21)).parentId = 'L1')),
  emptyParentId: (d, p) => void (at(d, p(20)).parentId = ''),
};

/** What pi's import is tried with: the same damage to a tree-format pi session. */
const IMPORT_MUTATIONS = ['selfParentMiddle', 'cycleOfTwo', 'ringThroughEveryEntry', 'byteOrderMark', 'damagedMiddle', 'damagedAdjacent', 'unknownKindMiddle', 'hugeGarbageLine', 'hugeValidLine', 'deepNesting'];
const LOG_PATHS = ['open', 'read', 'verify', 'context'] as const;

interface HostileCase {
  mutation: string;
  path: (typeof LOG_PATHS)[number] | 'import';
}

const CASES: HostileCase[] = [
  ...Object.keys(MUTATIONS).flatMap((mutation) => LOG_PATHS.map((path) => ({ mutation, path }))),
  ...IMPORT_MUTATIONS.map((mutation) => ({ mutation, path: 'import' as const })),
];

function baseEntries(index: number): NewEntry[] {
  const all = fixtureEntries();
  return Array.from({ length: ENTRIES }, (_, n) => all[(index * 37 + n) % all.length] ?? { type: 'user', text: 'hi' });
}

function logDraft(index: number): Draft {
  const rows: Json[] = baseEntries(index).map((fields, n) => ({ ...fields, id: `h${n}`, parentId: n === 0 ? null : `h${n - 1}`, timestamp: new Date(Date.UTC(2025, 0, 1, 0, n)).toISOString() }));
  return { rows: [{ type: 'session', version: 1, id: `hostile-${index}`, timestamp: 't' }, ...rows], keep: rows.map((row) => String(row.id)), setAside: 0, bom: false };
}

/** One of our entries as a pi version 3 message line. */
function piMessage(fields: NewEntry, id: string, parentId: string | null): Json {
  const base = { type: 'message', id, parentId, timestamp: 't' };
  if (fields.type === 'assistant') {
    const calls = fields.toolCalls.map((call) => ({ type: 'toolCall', id: call.id, name: call.name, arguments: call.arguments }));
    return { ...base, message: { role: 'assistant', content: [{ type: 'text', text: fields.text }, ...calls], stopReason: calls.length > 0 ? 'toolUse' : 'stop' } };
  }
  if (fields.type === 'toolResult') return { ...base, message: { role: 'toolResult', toolCallId: fields.toolCallId, toolName: fields.toolName, content: [{ type: 'text', text: fields.content }], isError: fields.isError } };
  return { ...base, message: { role: 'user', content: [{ type: 'text', text: fields.type === 'user' ? fields.text : '' }] } };
}

function piDraft(index: number): Draft {
  const rows = baseEntries(index).map((fields, n) => piMessage(fields, `p${n}`, n === 0 ? null : `p${n - 1}`));
  return { rows: [{ type: 'session', version: 3, id: `pi-${index}`, timestamp: 't', cwd: '/x' }, ...rows], keep: rows.map((row) => String(row.id)), setAside: 0, bom: false };
}

function fileText(draft: Draft): string {
  const lines = draft.rows.map((row) => (typeof row === 'string' ? row : JSON.stringify(row)));
  return `${draft.bom ? BOM : ''}${lines.join('\n')}\n`;
}

interface Outcome {
  crashed: boolean;
  hung: boolean;
  lost: number;
  failures: string[];
}

/** Ids of `keep` that are not on `path`. */
function lostFrom(path: readonly SessionEntry[], keep: readonly string[]): number {
  const onPath = new Set(path.map((entry) => entry.id));
  return keep.filter((id) => !onPath.has(id)).length;
}

function checkContext(path: readonly SessionEntry[], failures: string[]): void {
  const problems = validateChatMessages(buildContext(path, { systemPrompt: 'system' }).messages);
  if (problems.length > 0) failures.push(`context is not provider-valid: ${problems[0]}`);
}

async function openPath(file: string, draft: Draft, failures: string[]): Promise<number> {
  const { log, warnings } = await SessionLog.open(file, { lock: false, io: volatileFileIo });
  let lost = lostFrom(log.path(), draft.keep);
  if (warnings.length !== draft.setAside) failures.push(`${draft.setAside} lines to set aside but ${warnings.length} warnings`);
  const next = await log.append({ type: 'user', text: 'after the repair' });
  await log.close();
  const again = await SessionLog.open(file, { readOnly: true });
  if (again.warnings.length > 0) failures.push(`the second open still warns: ${again.warnings[0]}`);
  lost += lostFrom(again.log.path(), [...draft.keep, next.id]);
  checkContext(again.log.path(), failures);
  return lost;
}

async function readPath(file: string, draft: Draft, failures: string[]): Promise<number> {
  const { log, warnings } = await SessionLog.open(file, { readOnly: true });
  if (warnings.length !== draft.setAside) failures.push(`${draft.setAside} damaged lines but ${warnings.length} warnings`);
  checkContext(log.path(), failures);
  return lostFrom(log.path(), draft.keep);
}

async function verifyPath(file: string, draft: Draft, failures: string[]): Promise<number> {
  const parsed = parseLog(readFileSync(file), file);
  const report = await buildVerifyReport(parsed, new BlobStore(nodePath.join(nodePath.dirname(file), 'blobs'), volatileFileIo));
  if (formatVerifyReport(report).length === 0) failures.push('empty verify report');
  if (report.counts.corruptLines !== draft.setAside) failures.push(`${draft.setAside} damaged lines but verify counts ${report.counts.corruptLines}`);
  const loaded = new Set(parsed.entries.map((entry) => entry.id));
  return draft.keep.filter((id) => !loaded.has(id)).length;
}

async function contextPath(file: string, draft: Draft, failures: string[]): Promise<number> {
  const { log } = await SessionLog.open(file, { readOnly: true });
  // Every entry as a leaf: no path through the tree may loop or grow past the number of entries.
  for (const entry of log.tree.entries) {
    const path = log.tree.pathTo(entry.id);
    if (path.length > log.tree.entries.length) failures.push(`the path to ${entry.id} is longer than the log`);
    buildContext(path);
  }
  checkContext(log.path(), failures);
  return lostFrom(log.path(), draft.keep);
}

async function importPath(dir: string, draft: Draft, failures: string[]): Promise<number> {
  const input = nodePath.join(dir, 'pi.jsonl');
  writeFileSync(input, fileText(draft));
  const out = nodePath.join(dir, 'imported.jsonl');
  await importPiFile(input, out, volatileFileIo);
  const { log, warnings } = await SessionLog.open(out, { readOnly: true });
  if (warnings.length > 0) failures.push(`the imported log warns: ${warnings[0]}`);
  checkContext(log.path(), failures);
  const messages = log.path().filter(isMessageEntry).length;
  return Math.max(0, draft.keep.filter((id) => id.startsWith('p')).length - messages);
}

async function runCase(index: number, root: string): Promise<Outcome> {
  const hostile = CASES[index] as HostileCase;
  const dir = nodePath.join(root, `case-${index}`);
  mkdirSync(dir, { recursive: true });
  const failures: string[] = [];
  try {
    const draft = hostile.path === 'import' ? piDraft(index) : logDraft(index);
    const mutate = MUTATIONS[hostile.mutation];
    if (!mutate) throw new Error(`no mutation ${hostile.mutation}`);
    mutate(draft, (n) => `${hostile.path === 'import' ? 'p' : 'h'}${n}`);
    const file = nodePath.join(dir, 'session.jsonl');
    if (hostile.path !== 'import') writeFileSync(file, fileText(draft));
    const paths = { open: openPath, read: readPath, verify: verifyPath, context: contextPath };
    const lost = hostile.path === 'import' ? await importPath(dir, draft, failures) : await paths[hostile.path](file, draft, failures);
    return { crashed: false, hung: false, lost, failures };
  } catch (error) {
    return { crashed: true, hung: false, lost: 0, failures: [`exception: ${messageOf(error)}`] };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

type CaseMessage = { kind: 'start'; index: number } | { kind: 'done'; index: number; outcome: Outcome };

/** Child side: runs the cases from `start` on, announcing each before it begins so a hang or a crash is pinned to its case. */
async function childMain(start: number, root: string): Promise<void> {
  for (let index = start; index < CASES.length; index++) {
    process.stdout.write(`${JSON.stringify({ kind: 'start', index } satisfies CaseMessage)}\n`);
    process.stdout.write(`${JSON.stringify({ kind: 'done', index, outcome: await runCase(index, root) } satisfies CaseMessage)}\n`);
  }
}

/**
 * Runs cases from `start` in one child process (this script again, with a heap limit) until they are done or
 * one hangs or kills it (an endless loop ends in a fatal out-of-memory, which no worker thread would survive);
 * resolves with where to resume.
 */
function runBatch(start: number, root: string, outcomes: Outcome[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--max-old-space-size=1024', __filename, CHILD_FLAG, String(start), root], { stdio: ['ignore', 'pipe', 'pipe'] });
    let current = start;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr = `${stderr}${chunk.toString('utf8')}`.slice(-2000)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const message = JSON.parse(line) as CaseMessage;
      if (message.kind === 'done') {
        outcomes[message.index] = message.outcome;
        return;
      }
      current = message.index;
      clearTimeout(timer);
      timer = setTimeout(() => {
        outcomes[current] ??= { crashed: false, hung: true, lost: 0, failures: [`still running after ${HANG_BOUND_MS / 1000} s`] };
        child.kill('SIGKILL');
      }, HANG_BOUND_MS);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const died = outcomes[current] === undefined;
      const last = stderr.trim().split('\n').find((line) => /error|fatal/i.test(line)) ?? '';
      if (died) outcomes[current] = { crashed: true, hung: false, lost: 0, failures: [`the process died (${signal ?? `exit ${code}`}) ${last}`] };
      resolve(current + 1);
    });
  });
}

async function run(): Promise<FamilyResult> {
  const root = mkdtempSync(nodePath.join(tmpdir(), 'faults-hostile-'));
  const failures = new FailureList();
  const outcomes: Outcome[] = [];
  try {
    for (let next = 0; next < CASES.length; ) next = await runBatch(next, root, outcomes);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  outcomes.forEach((outcome, index) => {
    const hostile = CASES[index] as HostileCase;
    const tag = `${hostile.mutation} on ${hostile.path}`;
    for (const failure of outcome.failures) failures.add(`${tag}: ${failure}`);
    if (outcome.lost > 0) failures.add(`${tag}: ${outcome.lost} entries lost`);
  });
  const count = (pick: (outcome: Outcome) => boolean): number => outcomes.filter(pick).length;
  const lost = outcomes.reduce((sum, outcome) => sum + outcome.lost, 0);
  const missing = CASES.length - outcomes.filter(Boolean).length;
  if (missing > 0) failures.add(`${missing} cases never reported`);
  return {
    line: `hostile logs: ${CASES.length} cases, ${count((outcome) => outcome.crashed)} crashes, ${count((outcome) => outcome.hung)} hangs past ${HANG_BOUND_MS / 1000} s, ${lost} entries lost`,
    failures: failures.list(),
  };
}

const childArgs = process.argv.slice(2);
if (childArgs[0] === CHILD_FLAG) void childMain(Number(childArgs[1]), childArgs[2] ?? tmpdir());
else runFamily('hostile logs', run);
