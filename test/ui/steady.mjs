// Waiting the way a busy machine needs: for lasting evidence, with elements found again on every try (the panel re-renders).
import fs from 'node:fs';

const DETACHED = /not attached to the DOM|detached|Execution context was destroyed/i;

/**
 * Runs `action` (which must look its elements up itself, e.g. through a locator) until it succeeds; a try that
 * failed because the element it had found was replaced meanwhile (the panel re-rendered) is tried again.
 */
export async function retrying(what, action, { timeoutMs = 30_000 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (let tries = 1; ; tries++) {
    try {
      return await action();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (!DETACHED.test(message) || Date.now() > deadline) throw new Error(`${what} failed after ${tries} tr${tries === 1 ? 'y' : 'ies'}: ${message.split('\n')[0]}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/**
 * Polls `read` until `accept(value)` holds for `holdMs` on end (so a state on its way somewhere else is never taken
 * for the result); resolves to the value. `read` may throw while the screen changes: that counts as "not yet".
 */
export async function lasting(what, read, accept, { timeoutMs = 60_000, holdMs = 1_500, pollMs = 250 } = {}) {
  const deadline = Date.now() + timeoutMs;
  let since;
  let last;
  for (;;) {
    try {
      last = await read();
    } catch {
      last = undefined;
    }
    const ok = last !== undefined && accept(last);
    if (ok) {
      since ??= Date.now();
      if (Date.now() - since >= holdMs) return last;
    } else since = undefined;
    if (Date.now() > deadline) throw new Error(`${what}: never held for ${holdMs} ms within ${timeoutMs} ms; last seen ${JSON.stringify(last)?.slice(0, 400)}`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/**
 * A JSON file the workbench rewrites (settings.json), parsed: a read that lands mid-write (empty or cut short) is
 * tried again until `timeoutMs`, and only then reported.
 */
export async function readJsonFile(file, { timeoutMs = 10_000 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch (error) {
      if (!(error instanceof SyntaxError) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

