// Fault family: command checkpoints in a hostile workspace (nested repositories with hooks and filters, a poisoned environment, .gitignore swapped or hostile, odd bytes and names, modes, saves during a command, a large file, a cancel, a racing process, a kill -9): nothing runs, nothing is lost.
import * as childProcess from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import type { EditorSaves } from '../../src/core/checkpoints/commandSnapshots';
import { runCases, type HostileCase } from './caseRunner';
import { messageOf, runFamily } from './familyReport';
import { SeededRandom } from './seededRandom';
import { hostileIgnoreCases, longestStretch } from './hostileIgnoreCases';
import { hostileRestoreCases, killed } from './hostileRestoreCases';
import { byteTree, commandCycle, commonChecks, countingChildren, fakeGit, hexKey, MARKERS, MAX_BYTES, SECRET, snapshotsFor, storeBytes, treeDifferences, workspaceCase } from './workspaceKit';

/** A command that changes `edits` and creates and deletes a file; after a restore the tree must be as before it, bytes exact. */
function restoreRoundTrip(name: string, command: (root: string) => void, expectChanged: string[]): HostileCase {
  return workspaceCase(name, async (ws, outcome) => {
    const snapshots = snapshotsFor(ws);
    await countingChildren(() => snapshots.turnStarted('turn', { store: ws.store, maxBytes: MAX_BYTES }));
    const before = byteTree(ws.root);
    const cycle = await commandCycle(ws, snapshots, command);
    const changed = cycle.changes.changes.map((change) => change.path).sort();
    if (JSON.stringify(changed) !== JSON.stringify([...expectChanged].sort())) outcome.failures.push(`recorded ${JSON.stringify(changed)}, expected ${JSON.stringify(expectChanged)}`);
    if (cycle.changes.gap) outcome.failures.push(`gap: ${cycle.changes.gap}`);
    const afterCommand = byteTree(ws.root);
    const restored = await cycle.restore();
    if (restored.failed.length > 0) outcome.failures.push(`not restored: ${restored.failed.map((failure) => `${failure.path} (${failure.reason})`).join('; ')}`);
    // Byte for byte, nested .git folders included: what the command changed and recorded is as before it; every
    // other file (ignored ones the command touched too) is exactly as the command left it, untouched by the restore.
    const recorded = new Set(cycle.changes.changes.map((change) => hexKey(ws.root, change.absoluteBytes ? Buffer.from(change.absoluteBytes, 'base64') : Buffer.from(change.absolute))));
    const restoredTree = byteTree(ws.root);
    for (const difference of treeDifferences(before, restoredTree, (key) => !recorded.has(key))) outcome.failures.push(`${difference} (a recorded change not put back)`);
    for (const difference of treeDifferences(afterCommand, restoredTree, (key) => recorded.has(key))) outcome.failures.push(`${difference} by the restore, though the command's change to it was not recorded`);
    commonChecks(ws, outcome, [...cycle.started, ...restored.started]);
    if (!readFileSync(nodePath.join(ws.root, '.env'), 'utf8').startsWith('TOKEN')) outcome.bytesLost += SECRET.length;
  });
}

const write = (relative: string, data: string | Buffer) => (root: string) => writeFileSync(nodePath.join(root, relative), data);
const both =
  (...commands: Array<(root: string) => void>) =>
  (root: string) => {
    for (const command of commands) command(root);
  };

function restoreCases(): HostileCase[] {
  return [
    restoreRoundTrip('nested repository, racily clean, edited by the command', both(write('vendor/armed/lib.c', 'int armed = 3;\n'), write('vendor/armed/new.c', 'x\n')), ['vendor/armed/lib.c', 'vendor/armed/new.c']),
    restoreRoundTrip('.gitignore removed by the command', (root) => rmSync(nodePath.join(root, '.gitignore')), ['.gitignore']),
    restoreRoundTrip('.gitignore swapped (a branch checkout) and an ignored file rewritten', both(write('.gitignore', 'src/\n'), write('.env', 'TOKEN=rotated\n'), write('src/main.ts', 'export const main = 2;\n')), ['.gitignore', 'src/main.ts']),
    restoreRoundTrip('.gitignore emptied, secrets listed then "deleted" by a scaffolder', both(write('.gitignore', ''), (root) => rmSync(nodePath.join(root, 'notes.log'))), ['.gitignore']),
    restoreRoundTrip('CRLF and UTF-16 rewritten, a non-UTF-8 name renamed', both(write('src/crlf.txt', 'one\ntwo\n'), write('src/utf16.txt', 'utf-8 now'), (root) => {
      const from = Buffer.concat([Buffer.from(nodePath.join(root, 'src', 'l')), Buffer.from([0xe4]), Buffer.from('tin1.txt')]);
      writeFileSync(nodePath.join(root, 'src', 'renamed.txt'), readFileSync(from));
      rmSync(from);
    }), ['src/crlf.txt', 'src/l\uFFFDtin1.txt', 'src/renamed.txt', 'src/utf16.txt']),
    restoreRoundTrip('the nested repository\'s own .git rewritten by the command (never recorded, never restored)', write('vendor/armed/.git/config', '[core]\n\tbare = false\n'), []),
  ];
}

function savedDuringCommand(): HostileCase {
  return workspaceCase('edits saved in the editor during the command are the person\'s: named, never reverted', async (ws, outcome) => {
    const saves: EditorSaves = { watch: () => () => ws.saved };
    const snapshots = snapshotsFor(ws, saves);
    const cycle = await commandCycle(ws, snapshots, (root) => {
      writeFileSync(nodePath.join(root, 'src', 'main.ts'), 'typed and saved by the person\n');
      ws.saved.push(nodePath.join(root, 'src', 'main.ts'));
      writeFileSync(nodePath.join(root, 'src', 'made.ts'), 'by the command\n');
    });
    if (cycle.changes.changes.some((change) => change.path === 'src/main.ts')) outcome.failures.push('a file the person saved was taken for the command\'s');
    if (!cycle.changes.notes.some((note) => note.includes('src/main.ts was saved in the editor'))) outcome.failures.push('the saved file is not named');
    const restored = await cycle.restore();
    if (readFileSync(nodePath.join(ws.root, 'src', 'main.ts'), 'utf8') !== 'typed and saved by the person\n') outcome.bytesLost += 30;
    if (existsSync(nodePath.join(ws.root, 'src', 'made.ts'))) outcome.failures.push('what the command created was not removed');
    commonChecks(ws, outcome, [...cycle.started, ...restored.started]);
  });
}

function changedAfterCommand(): HostileCase {
  return workspaceCase('a file changed after the command is never deleted or rewritten by a restore', async (ws, outcome) => {
    const snapshots = snapshotsFor(ws);
    const cycle = await commandCycle(ws, snapshots, both(write('src/made.ts', 'generated\n'), write('src/main.ts', 'formatted\n')));
    writeFileSync(nodePath.join(ws.root, 'src', 'made.ts'), 'the person kept working here\n');
    writeFileSync(nodePath.join(ws.root, 'src', 'main.ts'), 'and here\n');
    const restored = await cycle.restore();
    if (JSON.stringify(restored.kept.sort()) !== JSON.stringify(['src/made.ts', 'src/main.ts'])) outcome.failures.push(`kept ${JSON.stringify(restored.kept)}`);
    if (readFileSync(nodePath.join(ws.root, 'src', 'made.ts'), 'utf8') !== 'the person kept working here\n') outcome.bytesLost += 29;
    if (readFileSync(nodePath.join(ws.root, 'src', 'main.ts'), 'utf8') !== 'and here\n') outcome.bytesLost += 9;
    commonChecks(ws, outcome, [...cycle.started, ...restored.started]);
  });
}

function poisonedEnvironment(): HostileCase {
  return workspaceCase('a poisoned environment (GIT_CONFIG_*, GIT_DIR, a fake git first on PATH)', async (ws, outcome) => {
    const saved = { ...process.env };
    const marker = `touch ${JSON.stringify(nodePath.join(ws.root, 'ENV-CONFIG-RAN'))}`;
    Object.assign(process.env, {
      GIT_CONFIG_COUNT: '2',
      GIT_CONFIG_KEY_0: 'core.fsmonitor',
      GIT_CONFIG_VALUE_0: marker,
      GIT_CONFIG_KEY_1: 'core.hooksPath',
      GIT_CONFIG_VALUE_1: nodePath.join(ws.root, 'vendor', 'armed', '.git', 'hooks'),
      GIT_CONFIG_PARAMETERS: `'core.fsmonitor'='${marker}'`,
      GIT_DIR: nodePath.join(ws.root, 'vendor', 'armed', '.git'),
      GIT_WORK_TREE: ws.root,
      GIT_INDEX_FILE: nodePath.join(ws.root, 'index'),
      GIT_EXTERNAL_DIFF: marker,
      PATH: `${fakeGit(ws.base, ws.root)}${nodePath.delimiter}${process.env.PATH ?? ''}`,
    });
    try {
      const before = byteTree(ws.root);
      const snapshots = snapshotsFor(ws);
      const cycle = await commandCycle(ws, snapshots, write('src/main.ts', 'changed under a poisoned environment\n'));
      if (cycle.changes.changes.map((change) => change.path).join() !== 'src/main.ts') outcome.failures.push(`recorded ${cycle.changes.changes.map((change) => change.path).join(', ')}`);
      const restored = await cycle.restore();
      for (const difference of treeDifferences(before, byteTree(ws.root))) outcome.failures.push(difference);
      commonChecks(ws, outcome, [...cycle.started, ...restored.started]);
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    }
  });
}

function largeFileTenCommands(): HostileCase {
  return workspaceCase('a large file changed by 10 commands adds nothing to the store', async (ws, outcome) => {
    const big = (n: number): Buffer => Buffer.alloc(2 * 1024 * 1024, 65 + n);
    writeFileSync(nodePath.join(ws.root, 'data.bin'), big(0));
    const snapshots = snapshotsFor(ws);
    await snapshots.turnStarted('turn', { store: ws.store, maxBytes: MAX_BYTES });
    const start = storeBytes(ws);
    const started: string[] = [];
    for (let command = 1; command <= 10; command++) {
      const cycle = await commandCycle(ws, snapshots, write('data.bin', big(command)));
      started.push(...cycle.started);
      if (!cycle.changes.notes.some((note) => note.startsWith('data.bin was changed by the command without a checkpoint snapshot (at 2.0 MB'))) outcome.failures.push(`command ${command}: the large file is not named`);
    }
    if (storeBytes(ws) - start > 64 * 1024) outcome.failures.push(`the store grew by ${storeBytes(ws) - start} bytes over 10 commands`);
    commonChecks(ws, outcome, started);
  });
}

function cancelMidSnapshot(seed: number): HostileCase {
  return workspaceCase(`a cancel mid-snapshot (seed ${seed}) leaves nothing behind that the next command would misread`, async (ws, outcome) => {
    const random = new SeededRandom(seed + 7);
    for (let n = 0; n < 400; n++) writeFileSync(nodePath.join(ws.root, 'src', `file${n}.ts`), `export const n${n} = ${n};\n`);
    const snapshots = snapshotsFor(ws);
    const controller = new AbortController();
    let ticks = random.int(0, 6);
    const abortSoon = (): void => {
      if (ticks-- <= 0) controller.abort();
      else setImmediate(abortSoon);
    };
    abortSoon();
    const stopped = await countingChildren(() => snapshots.before('stopped', { store: ws.store, maxBytes: MAX_BYTES, signal: controller.signal }));
    const gap = (await stopped.value.after()).gap;
    if (gap !== undefined && !/stopped/.test(gap)) outcome.failures.push(`a stopped snapshot said: ${gap}`);
    const edited = `src/file${random.int(0, 399)}.ts`;
    const cycle = await commandCycle(ws, snapshots, write(edited, 'edited after the cancel\n'));
    const recorded = cycle.changes.changes.map((change) => change.path);
    if (recorded.join() !== edited) outcome.failures.push(`after a cancel the next command recorded ${JSON.stringify(recorded)} (expected ${edited})`);
    const restored = await cycle.restore();
    if (readFileSync(nodePath.join(ws.root, edited), 'utf8') === 'edited after the cancel\n') outcome.failures.push('the edit after the cancel was not restored');
    commonChecks(ws, outcome, [...stopped.started, ...cycle.started, ...restored.started]);
  });
}

function storeCap(): HostileCase {
  return workspaceCase('the store stays under its cap over 30 commands that each write 300 KB of new content', async (ws, outcome) => {
    const snapshots = snapshotsFor(ws);
    const started: string[] = [];
    let gaps = 0;
    for (let command = 0; command < 30; command++) {
      const cycle = await commandCycle(ws, snapshots, (root) => {
        for (let part = 0; part < 6; part++) writeFileSync(nodePath.join(root, 'src', `gen${part}.txt`), `${command}-${part}-`.repeat(50 * 1024 / 8));
      });
      started.push(...cycle.started);
      if (cycle.changes.gap) {
        gaps++;
        if (!/checkpoint store is full/.test(cycle.changes.gap)) outcome.failures.push(`unexpected gap: ${cycle.changes.gap}`);
      }
    }
    if (gaps === 0) outcome.failures.push('30 commands of 300 KB never reached a 4 MB cap');
    commonChecks(ws, outcome, started);
  });
}

function oddEntries(): HostileCase {
  return workspaceCase('a FIFO, a link loop and a link out of the workspace: no hang, nothing followed', async (ws, outcome) => {
    const fifo = nodePath.join(ws.root, 'src', 'pipe');
    if (process.platform !== 'win32') childProcess.execFileSync('mkfifo', [fifo]);
    const { symlinkSync } = await import('node:fs');
    symlinkSync('loop-b', nodePath.join(ws.root, 'loop-a'));
    symlinkSync('loop-a', nodePath.join(ws.root, 'loop-b'));
    symlinkSync('/etc', nodePath.join(ws.root, 'etc-link'));
    const snapshots = snapshotsFor(ws);
    const cycle = await commandCycle(ws, snapshots, write('src/main.ts', 'x\n'));
    if (cycle.changes.changes.map((change) => change.path).join() !== 'src/main.ts') outcome.failures.push(`recorded ${cycle.changes.changes.map((change) => change.path).join(', ')}`);
    commonChecks(ws, outcome, cycle.started);
  });
}

runFamily('hostile workspace', async () => {
  try {
    const cases = [...restoreCases(), savedDuringCommand(), changedAfterCommand(), poisonedEnvironment(), largeFileTenCommands(), storeCap(), oddEntries(), ...Array.from({ length: 8 }, (_, seed) => cancelMidSnapshot(seed)), ...hostileIgnoreCases(), ...hostileRestoreCases()];
    return await runCases('hostile workspace', cases, () => `${MARKERS.length} markers a workspace program would write: none written; 0 child processes started by a snapshot or restore; longest stretch under a hostile .gitignore ${longestStretch.ms.toFixed(0)} ms (wall, shared machine); ${killed.refusedWhileSwapped} restored files refused while a process swapped their folder, none written outside; ${killed.leftTemps} of 2 killed snapshots left temp files, all removed`);
  } catch (error) {
    return { line: `hostile workspace: crashed (${messageOf(error)})`, failures: [messageOf(error)] };
  }
});
