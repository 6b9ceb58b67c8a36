// Fault family 2: seeded damage to real-ish logs; intact entries must load, bad lines go to quarantine byte for byte.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { SessionEntry } from '../../src/core/session/entries';
import { formatLine, parseLog, SessionReadError } from '../../src/core/session/logParser';
import { SessionLog } from '../../src/core/session/sessionLog';
import { runPool } from './childProcesses';
import { FailureList, messageOf, runFamily, type FamilyResult } from './familyReport';
import { fixtureEntries } from './fixtureEntries';
import { mutate, MUTATION_KINDS, type MutableLine } from './logMutations';
import { quarantinedLines } from './quarantineRecords';
import { SeededRandom } from './seededRandom';
import { volatileFileIo } from './volatileFileIo';

const CASES = Number(process.env.CORRUPTION_CASES ?? 500);
const BASE_SEED = 20_000;

interface CaseOutcome {
  crashed: boolean;
  lost: number;
  quarantined: number;
}

function baseLog(seed: number, random: SeededRandom): { lines: MutableLine[]; originals: SessionEntry[] } {
  const all = fixtureEntries();
  const start = random.int(0, all.length - 1);
  const header = {
    type: 'session' as const,
    version: 1,
    id: `corrupt-${seed}`,
    timestamp: new Date(Date.UTC(2025, 0, 1)).toISOString(),
  };
  const originals: SessionEntry[] = [];
  let parentId: string | null = null;
  for (let index = 0, count = random.int(12, 40); index < count; index++) {
    const fields = all[(start + index) % all.length] ?? { type: 'user' as const, text: 'hi' };
    const entry = {
      ...fields,
      id: `c${seed}-${index}`,
      parentId,
      timestamp: new Date(Date.UTC(2025, 0, 1, 0, index)).toISOString(),
    } as SessionEntry;
    originals.push(entry);
    parentId = entry.id;
  }
  const lines = [header, ...originals].map((value) => ({ bytes: Buffer.from(formatLine(value), 'utf8') }));
  return { lines, originals };
}

/** Complete lines (with their newline) and the unterminated tail, exactly as in the file. */
function physicalLines(data: Buffer): { complete: Buffer[]; tail?: Buffer } {
  const complete: Buffer[] = [];
  let offset = 0;
  for (let newline = data.indexOf(0x0a); newline >= 0; newline = data.indexOf(0x0a, offset)) {
    complete.push(data.subarray(offset, newline + 1));
    offset = newline + 1;
  }
  return offset < data.length ? { complete, tail: data.subarray(offset) } : { complete };
}

/** Lines the parser skips on purpose (empty or whitespace only): nothing to keep. */
function isBlank(line: Buffer): boolean {
  return (
    line
      .subarray(0, line.length - 1)
      .toString('utf8')
      .trim() === ''
  );
}

/** Content key of a line (hashing keeps multi-MB lines cheap to compare). */
function keyOf(line: Buffer | string): string {
  return createHash('sha256').update(line).digest('hex');
}

function multiset(buffers: readonly Buffer[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const buffer of buffers) counts.set(keyOf(buffer), (counts.get(keyOf(buffer)) ?? 0) + 1);
  return counts;
}

/** Every non-blank line of the damaged file is either still in the repaired log or in quarantine, byte for byte. */
function checkAccounted(damaged: Buffer, repaired: Buffer, file: string, failures: FailureList, tag: string): number {
  const before = physicalLines(damaged);
  const expected = [
    ...before.complete.slice(1).filter((line) => !isBlank(line)),
    ...(before.tail ? [before.tail] : []),
  ];
  const quarantined = quarantinedLines(file).map((record) => record.raw);
  const actual = [...physicalLines(repaired).complete.slice(1), ...quarantined];
  if (!isDeepStrictEqual(multiset(expected), multiset(actual))) {
    failures.add(`${tag}: repaired log + quarantine do not hold the damaged file's lines byte for byte`);
  }
  return quarantined.length;
}

function countLost(
  damaged: Buffer,
  lines: MutableLine[],
  originals: SessionEntry[],
  loaded: readonly SessionEntry[],
): number {
  const intact = new Set(physicalLines(damaged).complete.map(keyOf));
  const byId = new Map(loaded.map((entry) => [entry.id, entry]));
  const mustLoad = [...originals, ...lines.flatMap((line) => (line.validEntry ? [line.validEntry] : []))];
  return mustLoad.filter(
    (entry) => intact.has(keyOf(formatLine(entry))) && !isDeepStrictEqual(byId.get(entry.id), entry),
  ).length;
}

async function checkRepaired(
  file: string,
  loaded: readonly SessionEntry[],
  failures: FailureList,
  tag: string,
): Promise<void> {
  const repaired = parseLog(readFileSync(file), file);
  if (repaired.torn || repaired.corrupt.length > 0) failures.add(`${tag}: repaired log still has bad lines`);
  if (!isDeepStrictEqual(repaired.entries, loaded))
    failures.add(`${tag}: repaired log does not hold exactly the loaded entries`);
  const again = await SessionLog.open(file, { lock: false, io: volatileFileIo });
  if (again.warnings.length > 0) failures.add(`${tag}: second load still warns: ${again.warnings[0]}`);
  await again.log.append({ type: 'user', text: 'after repair' });
  await again.log.close();
  if (parseLog(readFileSync(file), file).entries.length !== loaded.length + 1)
    failures.add(`${tag}: append after repair not on disk`);
}

async function damagedHeaderCase(file: string, data: Buffer, failures: FailureList, tag: string): Promise<CaseOutcome> {
  try {
    await SessionLog.open(file, { lock: false, io: volatileFileIo });
  } catch (error) {
    if (!(error instanceof SessionReadError)) return { crashed: true, lost: 0, quarantined: 0 };
    if (!/session|header|JSON/.test(error.message)) failures.add(`${tag}: unclear header error: ${error.message}`);
  }
  if (!readFileSync(file).equals(data)) failures.add(`${tag}: a file with a damaged header was modified`);
  return { crashed: false, lost: 0, quarantined: 0 };
}

async function oneCase(root: string, index: number, failures: FailureList): Promise<CaseOutcome> {
  const seed = BASE_SEED + index;
  const tag = `case ${index} (seed ${seed})`;
  const random = new SeededRandom(seed);
  const { lines, originals } = baseLog(seed, random);
  const kinds = [
    MUTATION_KINDS[index % MUTATION_KINDS.length] ?? 'flip',
    ...Array.from({ length: random.int(0, 2) }, () => random.pick(MUTATION_KINDS)),
  ];
  for (const kind of kinds) mutate(lines, kind, random, seed);
  const headerCase = index % 25 === 24;
  if (headerCase) lines[0] = { bytes: Buffer.concat([Buffer.from('{"type":"sess'), randomTail(random)]) };
  const dir = nodePath.join(root, `case-${index}`);
  const file = nodePath.join(dir, 'session.jsonl');
  mkdirSync(dir, { recursive: true });
  const damaged = Buffer.concat(lines.map((line) => line.bytes));
  writeFileSync(file, damaged);
  try {
    if (headerCase) return await damagedHeaderCase(file, damaged, failures, tag);
    const { log, warnings } = await SessionLog.open(file, { lock: false, io: volatileFileIo });
    const loaded = [...log.tree.entries];
    await log.close();
    const lost = countLost(damaged, lines, originals, loaded);
    if (lost > 0) failures.add(`${tag} (${kinds.join('+')}): ${lost} intact entries did not load`);
    const quarantined = checkAccounted(damaged, readFileSync(file), file, failures, tag);
    if (warnings.length !== quarantined)
      failures.add(`${tag}: ${quarantined} lines quarantined but ${warnings.length} warnings`);
    await checkRepaired(file, loaded, failures, tag);
    return { crashed: false, lost, quarantined };
  } catch (error) {
    failures.add(`${tag} (${kinds.join('+')}): exception: ${messageOf(error)}`);
    return { crashed: true, lost: 0, quarantined: 0 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function randomTail(random: SeededRandom): Buffer {
  return Buffer.from(`${'x'.repeat(random.int(0, 30))}\n`);
}

async function run(): Promise<FamilyResult> {
  const root = mkdtempSync(nodePath.join(tmpdir(), 'faults-corruption-'));
  const failures = new FailureList();
  try {
    const outcomes = await runPool(CASES, Number(process.env.CORRUPTION_PARALLEL ?? 12), (index) =>
      oneCase(root, index, failures),
    );
    const crashes = outcomes.filter((outcome) => outcome.crashed).length;
    const lost = outcomes.reduce((sum, outcome) => sum + outcome.lost, 0);
    const quarantined = outcomes.reduce((sum, outcome) => sum + outcome.quarantined, 0);
    process.stderr.write(`corruption detail: ${quarantined} damaged lines quarantined\n`);
    return {
      line: `corruption: ${CASES} cases, ${crashes} crashes, ${lost} valid entries lost`,
      failures: failures.list(),
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

runFamily('corruption', run);
