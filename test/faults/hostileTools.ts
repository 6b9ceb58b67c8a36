// Fault family: the tools against hostile input: catastrophic regexes and globs, escaped children, FIFOs, hard links, swaps.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import { nodeWorkspaceAccess } from '../support/nodeWorkspaceAccess';
import { DEFAULT_TOOL_LIMITS, type ToolContext, type ToolOutput } from '../../src/core/tools/toolTypes';
import { treeSnapshot } from './treeSnapshot';
import { FailureList, messageOf, runFamily, type FamilyResult } from './familyReport';
import { commandCases, fileCases, globCases, regexCases, SECRET, type HostileCase, type Layout } from './hostileToolCases';

/** A case still pending after this long is a hang (the tools' own limits are 2 s per file and 0.5 s of pipe grace). */
const HANG_BOUND_MS = Number(process.env.HOSTILE_TOOLS_HANG_MS ?? 10_000);

function makeLayout(base: string): Layout {
  const workspace = nodePath.join(base, 'ws');
  const outside = nodePath.join(base, 'outside');
  for (const dir of [workspace, outside, nodePath.join(workspace, 'src')]) mkdirSync(dir, { recursive: true });
  writeFileSync(nodePath.join(outside, 'secret.txt'), `${SECRET}\n`);
  return { workspace, outside, escaped: [] };
}

function contextFor(layout: Layout, hostile: HostileCase, signal: AbortSignal): ToolContext {
  const access = nodeWorkspaceAccess([layout.workspace], {
    trusted: true,
    confirm: () => {
      hostile.duringConfirm?.(layout);
      return Promise.resolve(true);
    },
  });
  return { signal, workspace: access, limits: { ...DEFAULT_TOOL_LIMITS, commandTimeoutMs: 2_000 }, toolCallId: 'call-hostile' };
}

type Outcome = { kind: 'done'; output: ToolOutput } | { kind: 'crash'; message: string } | { kind: 'hang' };

async function runCase(layout: Layout, hostile: HostileCase): Promise<{ outcome: Outcome; ms: number }> {
  hostile.setup?.(layout);
  const controller = new AbortController();
  const cancel = hostile.cancelAfterMs === undefined ? undefined : setTimeout(() => controller.abort(), hostile.cancelAfterMs);
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<Outcome>((resolve) => (timer = setTimeout(() => resolve({ kind: 'hang' }), HANG_BOUND_MS)));
  const started = Date.now();
  const attempt = hostile.tool
    .execute(hostile.args, contextFor(layout, hostile, controller.signal))
    .then((output): Outcome => ({ kind: 'done', output }), (error: unknown): Outcome => ({ kind: 'crash', message: messageOf(error) }));
  const outcome = await Promise.race([attempt, bound]);
  const ms = Date.now() - started;
  clearTimeout(timer);
  clearTimeout(cancel);
  if (outcome.kind === 'hang') controller.abort();
  return { outcome: outcome.kind === 'done' && ms > HANG_BOUND_MS ? { kind: 'hang' } : outcome, ms };
}

/** Stops the escaped background processes the command cases reported (by pid, never by name). */
function stopEscaped(layout: Layout, outputs: string[]): void {
  for (const text of outputs) for (const match of text.matchAll(/pid=(\d+)/g)) layout.escaped.push(Number(match[1]));
  for (const pid of layout.escaped.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

function startSocket(path: string): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(path, () => resolve(server));
  });
}

async function run(): Promise<FamilyResult> {
  const base = realpathSync(mkdtempSync(nodePath.join(tmpdir(), 'faults-hostile-tools-')));
  const failures = new FailureList();
  const layout = makeLayout(base);
  const socket = await startSocket(nodePath.join(layout.workspace, 'src', 'agent.sock'));
  const cases = [...regexCases(), ...globCases(), ...commandCases(), ...fileCases()];
  let crashes = 0;
  let hangs = 0;
  let outsideWrites = 0;
  const before = treeSnapshot(layout.outside);
  const outputs: string[] = [];
  try {
    for (const hostile of cases) {
      const { outcome, ms } = await runCase(layout, hostile);
      if (outcome.kind === 'crash') {
        crashes++;
        failures.add(`${hostile.name}: threw ${outcome.message}`);
      } else if (outcome.kind === 'hang') {
        hangs++;
        failures.add(`${hostile.name}: still running after ${HANG_BOUND_MS / 1000} s (or took ${ms} ms)`);
      } else {
        outputs.push(outcome.output.text);
        const problem = outcome.output.text.includes(SECRET) ? 'leaked the outside file' : hostile.check(outcome.output, ms);
        if (problem !== undefined) failures.add(`${hostile.name}: ${problem} (${ms} ms): ${outcome.output.text.slice(0, 160)}`);
      }
      if (treeSnapshot(layout.outside) !== before) {
        outsideWrites++;
        failures.add(`${hostile.name}: files outside the workspace changed`);
        writeFileSync(nodePath.join(layout.outside, 'secret.txt'), `${SECRET}\n`);
      }
      hostile.teardown?.(layout);
    }
  } finally {
    stopEscaped(layout, outputs);
    socket.close();
    rmSync(base, { recursive: true, force: true });
  }
  return {
    line: `hostile tools: ${cases.length} cases, ${crashes} crashes, ${hangs} hangs past ${HANG_BOUND_MS / 1000} s, ${outsideWrites} files written outside the workspace`,
    failures: failures.list(),
  };
}

if (process.platform === 'win32') process.stdout.write('hostile tools: not run on Windows (FIFOs, setsid and sockets are POSIX)\n');
else runFamily('hostile tools', run);
