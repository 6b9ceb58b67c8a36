// Optional hook: starts the scripted OpenAI-compatible endpoint (dist-test/support/scriptedEndpointMain.js) if it has been built.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ROOT, findFreePort } from './codeServer.mjs';

export const ENDPOINT_MAIN = path.join(ROOT, 'dist-test/support/scriptedEndpointMain.js');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function portIsOpen(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Starts `node scriptedEndpointMain.js <scenario> <port>`; resolves to undefined when the file does not exist.
 * The URL is the first http(s) URL the process prints, else http://127.0.0.1:<port>/v1 once the port accepts.
 */
export async function startScriptedEndpoint(scenario, { timeoutMs = 15_000 } = {}) {
  if (!fs.existsSync(ENDPOINT_MAIN)) return undefined;
  const port = await findFreePort();
  const child = spawn(process.execPath, [ENDPOINT_MAIN, scenario, String(port)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let printedUrl;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    printedUrl ??= /https?:\/\/\S+/.exec(chunk)?.[0];
  });
  const deadline = Date.now() + timeoutMs;
  while (printedUrl === undefined && !(await portIsOpen(port))) {
    if (child.exitCode !== null) throw new Error(`scripted endpoint exited with code ${child.exitCode}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`scripted endpoint did not listen on ${port} within ${timeoutMs} ms`);
    }
    await sleep(100);
  }
  const url = printedUrl ?? `http://127.0.0.1:${port}/v1`;
  const stop = () => {
    if (child.exitCode === null) child.kill('SIGTERM');
  };
  return { url, port, scenario, stop };
}
