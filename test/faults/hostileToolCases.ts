// The hostile-tools cases: what each tries, how its workspace is prepared, and what a safe answer looks like.
import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, renameSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { runCommandTool } from '../../src/core/tools/commandTool';
import { editFileTool, writeFileTool } from '../../src/core/tools/editTools';
import { findFilesTool, readFileTool, searchTextTool } from '../../src/core/tools/fileTools';
import type { Tool, ToolOutput } from '../../src/core/tools/toolTypes';

export const SECRET = 'TOP-SECRET-OUTSIDE-THE-WORKSPACE';

export interface Layout {
  workspace: string;
  outside: string;
  /** Pids of escaped background processes to stop at the end. */
  escaped: number[];
}

type Check = (output: ToolOutput, ms: number) => string | undefined;

export interface HostileCase {
  name: string;
  tool: Tool;
  args: Record<string, unknown>;
  setup?: (layout: Layout) => void;
  teardown?: (layout: Layout) => void;
  /** The attacker's move while the person is being asked to confirm. */
  duringConfirm?: (layout: Layout) => void;
  cancelAfterMs?: number;
  /** A problem with the answer, or undefined when it is safe and as expected. */
  check: Check;
}

const write = (layout: Layout, relative: string, text: string): void => {
  const file = nodePath.join(layout.workspace, relative);
  mkdirSync(nodePath.dirname(file), { recursive: true });
  writeFileSync(file, text);
};
const remove = (layout: Layout, relative: string): void => rmSync(nodePath.join(layout.workspace, relative), { recursive: true, force: true });
const inside = (layout: Layout, relative: string): string => nodePath.join(layout.workspace, relative);
const secretFile = (layout: Layout): string => nodePath.join(layout.outside, 'secret.txt');
const mkfifo = (path: string): void => {
  execFileSync('mkfifo', [path]);
};

const all =
  (...checks: Check[]): Check =>
  (output, ms) =>
    checks.map((check) => check(output, ms)).find((problem) => problem !== undefined);
const fasterThan =
  (limit: number): Check =>
  (_output, ms) =>
    ms < limit ? undefined : `took longer than ${limit} ms`;
const errorWith =
  (pattern: RegExp): Check =>
  (output) =>
    output.isError && pattern.test(output.text) ? undefined : `expected an error matching ${String(pattern)}`;
const succeedsWith =
  (pattern: RegExp): Check =>
  (output) =>
    !output.isError && pattern.test(output.text) ? undefined : `expected a result matching ${String(pattern)}`;

function slowRegex(name: string, pattern: string, line: string): HostileCase {
  return {
    name: `search_text ${name}`,
    tool: searchTextTool,
    args: { pattern, isRegex: true, glob: 're/**' },
    setup: (layout) => write(layout, 're/input.txt', `${line}\n`),
    teardown: (layout) => remove(layout, 're'),
    check: all(errorWith(/is too slow/), fasterThan(6_000)),
  };
}

export function regexCases(): HostileCase[] {
  const callLine = `call(${Array.from({ length: 40 }, (_, i) => `arg${i}`).join(', ')});x`;
  return [
    slowRegex('(a+)+$', '(a+)+$', `${'a'.repeat(60)}b`),
    slowRegex('identifier list', '(\\w+\\s?,?\\s?)+\\);$', callLine),
    slowRegex('alternation overlap', '(a|aa)+$', `${'a'.repeat(80)}!`),
    slowRegex('email-like', '^(([a-z])+.)+[A-Z]([a-z])+$', `${'a'.repeat(60)}!`),
    slowRegex('x+x+', '(x+x+)+y', 'x'.repeat(80)),
    slowRegex('polynomial repeat', '(.*a){12}b', 'a'.repeat(80)),
    { ...slowRegex('cancelled', '(a+)+$', `${'a'.repeat(60)}b`), cancelAfterMs: 200, check: all(errorWith(/cancelled by the user/), fasterThan(1_500)) },
    {
      name: 'search_text 6 MB file with an ordinary regex',
      tool: searchTextTool,
      args: { pattern: 'needle\\d+', isRegex: true, glob: 'big/**' },
      setup: (layout) => write(layout, 'big/data.txt', `${'hay hay hay\n'.repeat(500_000)}needle42\n`),
      teardown: (layout) => remove(layout, 'big'),
      check: all(succeedsWith(/data\.txt:500001: needle42/), fasterThan(8_000)),
    },
    {
      name: 'search_text with a FIFO as .gitignore and a socket in the tree',
      tool: searchTextTool,
      args: { pattern: 'export' },
      setup: (layout) => mkfifo(inside(layout, '.gitignore')),
      teardown: (layout) => remove(layout, '.gitignore'),
      check: fasterThan(5_000),
    },
  ];
}

function slowGlob(tool: Tool, glob: string, expect: Check): HostileCase {
  return {
    name: `${tool.definition.function.name} glob ${glob.length > 40 ? `${glob.slice(0, 40)}...` : glob}`,
    tool,
    args: tool === findFilesTool ? { glob } : { pattern: 'a', glob },
    setup: (layout) => {
      for (let i = 0; i < 20; i++) write(layout, `g/${'a'.repeat(40)}/${'a'.repeat(60)}${i}.txt`, 'a\n');
    },
    teardown: (layout) => remove(layout, 'g'),
    check: all(expect, fasterThan(3_000)),
  };
}

export function globCases(): HostileCase[] {
  const noMatch = succeedsWith(/^No (files match|matches for)/);
  return [
    slowGlob(findFilesTool, `${'*a'.repeat(12)}*b`, noMatch),
    slowGlob(findFilesTool, `${'*a'.repeat(60)}*b`, noMatch),
    slowGlob(findFilesTool, `${'**/'.repeat(40)}${'*a'.repeat(10)}*b`, noMatch),
    slowGlob(findFilesTool, `g/**/${'?'.repeat(300)}`, noMatch),
    slowGlob(findFilesTool, '{a,b}'.repeat(20), errorWith(/alternatives/)),
    slowGlob(findFilesTool, '{'.repeat(1500), noMatch),
    slowGlob(findFilesTool, `${'[a-z'.repeat(400)}`, noMatch),
    slowGlob(findFilesTool, '*'.repeat(5000), errorWith(/longer than/)),
    slowGlob(searchTextTool, `${'*a'.repeat(12)}*b`, noMatch),
  ];
}

function command(name: string, args: Record<string, unknown>, expect: Check, cancelAfterMs?: number): HostileCase {
  return { name: `run_command ${name}`, tool: runCommandTool, args, cancelAfterMs, check: expect };
}

export function commandCases(): HostileCase[] {
  return [
    command('setsid child holds the pipe', { command: 'setsid sleep 4242 & echo "started pid=$!"' }, all(succeedsWith(/started[\s\S]*kept its output open/), fasterThan(3_000))),
    command('subshell child holds the pipe', { command: '(sleep 4243 & echo "pid=$!")' }, all(succeedsWith(/kept its output open/), fasterThan(3_000))),
    command('escaped shell', { command: `setsid sh -c 'echo "pid=$$"; exec sleep 4244' & sleep 0.2` }, fasterThan(3_000)),
    command('escaped endless writer', { command: `setsid sh -c 'echo "pid=$$"; exec yes' & sleep 0.2` }, fasterThan(4_000)),
    command('timeout with an escaped child', { command: 'setsid sleep 4245 & echo "pid=$!"; sleep 60', timeoutSeconds: 1 }, all(errorWith(/timed out/), fasterThan(4_000))),
    command('cancel with an escaped child', { command: 'setsid sleep 4246 & echo "pid=$!"; sleep 60' }, all(errorWith(/cancelled by the user/), fasterThan(2_500)), 300),
    command('reads stdin', { command: 'cat; read line; echo done' }, all(succeedsWith(/done/), fasterThan(3_000))),
    command('ignores SIGTERM until the timeout', { command: 'trap "" TERM INT HUP; sleep 60', timeoutSeconds: 1 }, all(errorWith(/timed out/), fasterThan(4_000))),
  ];
}

const refusedQuickly = (pattern: RegExp): Check => all(errorWith(pattern), fasterThan(3_000));

function swapCase(name: string, tool: Tool, args: Record<string, unknown>, swap: (layout: Layout) => void): HostileCase {
  return {
    name: `${tool.definition.function.name} ${name} during confirmation`,
    tool,
    args,
    setup: (layout) => write(layout, 'swap/target.txt', 'inside\n'),
    teardown: (layout) => {
      remove(layout, 'swap');
      remove(layout, 'swap-moved');
    },
    duringConfirm: swap,
    check: refusedQuickly(/symbolic link|resolves elsewhere|hard links|not a regular file|changed/),
  };
}

function swapCases(): HostileCase[] {
  const target = (layout: Layout): string => inside(layout, 'swap/target.txt');
  /** Replaces the target with what `make` creates at its path. */
  const replaced =
    (make: (layout: Layout, path: string) => void) =>
    (layout: Layout): void => {
      rmSync(target(layout));
      make(layout, target(layout));
    };
  const swaps: Array<[string, (layout: Layout) => void]> = [
    ['target swapped for a symlink out', replaced((layout, path) => symlinkSync(secretFile(layout), path))],
    ['target swapped for a dangling symlink out', replaced((layout, path) => symlinkSync(nodePath.join(layout.outside, 'created.txt'), path))],
    ['target swapped for a hard link out', replaced((layout, path) => linkSync(secretFile(layout), path))],
    ['target swapped for a FIFO', replaced((_layout, path) => mkfifo(path))],
    [
      'folder swapped for a symlink out',
      (layout) => {
        renameSync(inside(layout, 'swap'), inside(layout, 'swap-moved'));
        symlinkSync(layout.outside, inside(layout, 'swap'));
      },
    ],
  ];
  return swaps.flatMap(([name, swap]) => [
    swapCase(name, writeFileTool, { path: 'swap/target.txt', content: `${SECRET}-PWNED\n` }, swap),
    swapCase(name, editFileTool, { path: 'swap/target.txt', oldText: 'inside', newText: 'PWNED' }, swap),
  ]);
}

function specialFile(name: string, tool: Tool, args: Record<string, unknown>, setup: (layout: Layout) => void, check: Check): HostileCase {
  return { name: `${tool.definition.function.name} ${name}`, tool, args, setup, teardown: (layout) => remove(layout, 'special'), check };
}

export function fileCases(): HostileCase[] {
  const special = (layout: Layout, name: string): string => {
    mkdirSync(inside(layout, 'special'), { recursive: true });
    return inside(layout, `special/${name}`);
  };
  const fifo = (layout: Layout): void => mkfifo(special(layout, 'pipe'));
  const hardLink = (layout: Layout): void => linkSync(secretFile(layout), special(layout, 'hard.txt'));
  const sparse = (layout: Layout): void => {
    writeFileSync(special(layout, 'huge.txt'), '');
    truncateSync(special(layout, 'huge.txt'), 3 * 1024 ** 3);
  };
  const zero = (layout: Layout): void => symlinkSync('/dev/zero', special(layout, 'zero'));
  const none = (): void => undefined;
  return [
    specialFile('FIFO', readFileTool, { path: 'special/pipe' }, fifo, refusedQuickly(/not a regular file/)),
    specialFile('FIFO', editFileTool, { path: 'special/pipe', oldText: 'a', newText: 'b' }, fifo, refusedQuickly(/not a regular file/)),
    specialFile('FIFO', writeFileTool, { path: 'special/pipe', content: 'x' }, fifo, refusedQuickly(/not a regular file/)),
    specialFile('socket', readFileTool, { path: 'src/agent.sock' }, none, refusedQuickly(/socket/)),
    specialFile('hard link out', readFileTool, { path: 'special/hard.txt' }, hardLink, refusedQuickly(/hard links/)),
    specialFile('hard link out', editFileTool, { path: 'special/hard.txt', oldText: SECRET, newText: 'PWNED' }, hardLink, refusedQuickly(/hard links/)),
    specialFile('hard link out', writeFileTool, { path: 'special/hard.txt', content: 'PWNED' }, hardLink, refusedQuickly(/hard links/)),
    specialFile('hard link out', searchTextTool, { pattern: 'OUTSIDE-THE-WORKSPACE' }, hardLink, all(succeedsWith(/^No matches/), fasterThan(3_000))),
    specialFile('3 GB sparse file', readFileTool, { path: 'special/huge.txt' }, sparse, refusedQuickly(/more than the/)),
    specialFile('3 GB sparse file', searchTextTool, { pattern: 'x', glob: 'special/**' }, sparse, all(succeedsWith(/skipped/), fasterThan(3_000))),
    specialFile('symlink to /dev/zero', readFileTool, { path: 'special/zero' }, zero, refusedQuickly(/Refused path/)),
    ...swapCases(),
  ];
}
