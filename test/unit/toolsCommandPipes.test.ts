// run_command returns when the command exits even if an escaped background child keeps the output pipe open.
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCommandTool } from '../../src/core/tools/commandTool';
import { recordingAccess, tempWorkspace, toolContext, type TempWorkspace } from '../support/agentWorkspace';

let ws: TempWorkspace;
/** Pids the commands under test printed: escaped children that the test itself must stop. */
const escaped: number[] = [];

beforeEach(() => {
  ws = tempWorkspace();
});

afterEach(() => {
  for (const pid of escaped.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  ws.cleanup();
});

function remember(text: string): void {
  for (const match of text.matchAll(/pid=(\d+)/g)) escaped.push(Number(match[1]));
}

/** Alive and not a zombie (a killed child whose new parent has not reaped it yet counts as gone). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function timed(run: () => Promise<{ text: string; isError: boolean }>): Promise<{ text: string; isError: boolean; ms: number }> {
  const started = Date.now();
  const result = await run();
  remember(result.text);
  return { ...result, ms: Date.now() - started };
}

describe.skipIf(process.platform === 'win32')('run_command with escaped children', () => {
  it('run-command-returns-when-an-escaped-child-holds-the-pipe', async () => {
    const { access } = recordingAccess(ws.root);
    const result = await timed(() => runCommandTool.execute({ command: 'setsid sleep 4242 & echo "started pid=$!"' }, toolContext(access)));
    expect(result.ms).toBeLessThan(5_000);
    expect(result.isError).toBe(false);
    expect(result.text).toContain('started');
    expect(result.text).toContain('kept its output open');
  });

  it('run-command-timeout-returns-despite-an-escaped-child', async () => {
    const { access } = recordingAccess(ws.root);
    const command = 'setsid sleep 4243 & echo "pid=$!"; sleep 30';
    const result = await timed(() => runCommandTool.execute({ command, timeoutSeconds: 1 }, toolContext(access)));
    expect(result.ms).toBeLessThan(6_000);
    expect(result.isError).toBe(true);
    expect(result.text).toContain('timed out');
  });

  it('run-command-cancel-returns-despite-an-escaped-child', async () => {
    const { access } = recordingAccess(ws.root);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 500);
    const context = toolContext(access, { signal: controller.signal });
    const result = await timed(() => runCommandTool.execute({ command: 'setsid sleep 4244 & echo "pid=$!"; sleep 30' }, context));
    expect(result.ms).toBeLessThan(5_000);
    expect(result.text).toContain('[cancelled by the user]');
  });

  it.skipIf(process.platform !== 'linux')('run-command-kills-its-process-group-on-timeout', async () => {
    const { access } = recordingAccess(ws.root);
    const result = await timed(() => runCommandTool.execute({ command: 'sleep 4245 & echo "child=$!"; wait', timeoutSeconds: 1 }, toolContext(access)));
    expect(result.text).toContain('timed out');
    const child = Number(/child=(\d+)/.exec(result.text)?.[1]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(running(child)).toBe(false);
  });

  it('run-command-gives-commands-that-read-stdin-an-end-of-input', async () => {
    const { access } = recordingAccess(ws.root);
    const result = await timed(() => runCommandTool.execute({ command: 'cat; read line; echo "after read"' }, toolContext(access)));
    expect(result.ms).toBeLessThan(5_000);
    expect(result.text).toContain('after read');
  });
});
