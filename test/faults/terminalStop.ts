// Fault family (class 7): commands that ignore Ctrl+C, hide in other sessions or respawn are stopped for real, and a busy terminal is never reused.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { STOP_TIMINGS, stopCommand, TerminalPool } from '../../src/core/tools/commandStop';
import { descendantsOf, killDescendants, readProcessTable } from '../../src/core/tools/processTree';
import { passed, runCases, type HostileCase } from './caseRunner';
import { runFamily } from './familyReport';

/** Running, not a zombie waiting to be reaped. */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    try {
      process.kill(pid, 0);
      return process.platform !== 'linux';
    } catch {
      return false;
    }
  }
}

const COMMANDS: Array<[string, string]> = [
  ['obeys Ctrl+C', 'sleep 300'],
  ['ignores Ctrl+C', "trap '' INT; sleep 300"],
  ['ignores Ctrl+C and TERM', "trap '' INT TERM; sleep 300"],
  ['in its own session', "setsid bash -c \"trap '' INT; sleep 300\""],
  ['an inner shell', "bash -c \"bash -c 'trap \\\"\\\" INT; sleep 300'\""],
  ['respawns what dies', "trap '' INT; while :; do sleep 300; done"],
  ['twenty children', "trap '' INT; for i in $(seq 20); do sleep 300 & done; wait"],
  ['a reader waiting on input, like ssh', "trap '' INT; cat"],
  ['a busy loop', "trap '' INT; while :; do :; done"],
];

let slowest = 0;
let leftRunning = 0;

function stopCases(): HostileCase[] {
  return COMMANDS.map(([name, command]) => ({
    name: `stop: ${name}`,
    run: async () => {
      const outcome = passed();
      // The stand-in for the terminal's shell: it runs the command as its child and ends when the command does.
      const shell = spawn('bash', ['-c', `bash -c ${JSON.stringify(command)}; exit 0`], { stdio: ['pipe', 'ignore', 'ignore'] });
      const ended = new Promise<void>((resolve) => shell.on('exit', () => resolve()));
      await new Promise((resolve) => setTimeout(resolve, 300));
      const pid = shell.pid as number;
      const started = Date.now();
      const before = descendantsOf(pid, await readProcessTable());
      const result = await stopCommand(
        {
          interrupt: () => before.forEach((child) => process.kill(child, 'SIGINT')),
          shellPid: () => Promise.resolve(pid),
          killBelow: (root) => killDescendants(root),
          close: () => shell.kill('SIGHUP'),
        },
        ended,
      );
      const took = Date.now() - started;
      slowest = Math.max(slowest, took);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const survivors = [...before, pid].filter(alive);
      leftRunning += survivors.length;
      if (survivors.length > 0) outcome.failures.push(`${survivors.length} processes still run after "${result}"`);
      const bound = STOP_TIMINGS.interruptGraceMs + STOP_TIMINGS.killGraceMs + 1500;
      if (took > bound) outcome.failures.push(`stopping took ${took} ms (bound ${bound} ms)`);
      for (const survivor of survivors) process.kill(survivor, 'SIGKILL');
      return outcome;
    },
  }));
}

/** Sequences of commands over a pool: a terminal handed out is never one that runs or is stuck. */
function poolCases(): HostileCase[] {
  return [
    { name: 'pool: a running terminal is not handed out', run: () => poolSequence(['take', 'take'], [0, 1]) },
    { name: 'pool: a terminal whose end was seen is reused', run: () => poolSequence(['take', 'ended 0', 'take'], [0, 0]) },
    { name: 'pool: a stuck terminal is retired, not reused', run: () => poolSequence(['take', 'stuck 0', 'take'], [0, 1], [0]) },
    { name: 'pool: a closed terminal is dropped', run: () => poolSequence(['take', 'ended 0', 'close 0', 'take'], [0, 1]) },
    { name: 'pool: two chats, one stuck', run: () => poolSequence(['take', 'take', 'stuck 0', 'ended 1', 'take', 'take'], [0, 1, 1, 2], [0]) },
  ];
}

async function poolSequence(steps: readonly string[], expectedTerminals: readonly number[], expectedRetired: readonly number[] = []): Promise<{ failures: string[]; bytesLost: number }> {
  const outcome = passed();
  const closed = new Set<number>();
  const pool = new TerminalPool<number>((terminal) => closed.has(terminal));
  const handed: number[] = [];
  const retired: number[] = [];
  let next = 0;
  for (const step of steps) {
    const [verb, arg] = step.split(' ');
    const terminal = Number(arg);
    if (verb === 'take') {
      let got = pool.take((stuck) => retired.push(stuck));
      if (got === undefined) {
        got = next++;
        pool.add(got);
      }
      handed.push(got);
    } else if (verb === 'ended' || verb === 'stuck') pool.finished(terminal, verb === 'ended');
    else if (verb === 'close') closed.add(terminal);
  }
  if (JSON.stringify(handed) !== JSON.stringify(expectedTerminals)) outcome.failures.push(`handed out ${JSON.stringify(handed)}, expected ${JSON.stringify(expectedTerminals)}`);
  if (JSON.stringify(retired) !== JSON.stringify(expectedRetired)) outcome.failures.push(`retired ${JSON.stringify(retired)}, expected ${JSON.stringify(expectedRetired)}`);
  return Promise.resolve(outcome);
}

runFamily('terminal stop', () => runCases('terminal stop', [...stopCases(), ...poolCases()], () => `${leftRunning} processes left running, slowest stop ${(slowest / 1000).toFixed(1)} s`));
