// Restore as a flow of the core: planned, the session taken (a running request stopped), planned again on what is current, applied.
import { existsSync, readFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAgent } from '../../src/core/agent/agentLoop';
import { SessionEngine } from '../../src/core/agent/sessionEngine';
import { planCheckpointRestore, planCompactionRestore, restoreBeforeCompaction, restoreCheckpoint, type FlowSession, type RestoreOptions } from '../../src/core/agent/sessionFlows';
import type { RestoreItem } from '../../src/core/checkpoints/fileCheckpoints';
import type { CompactionProposal } from '../../src/core/compaction/compaction';
import type { ModelStream } from '../../src/core/llm/modelStream';
import type { SessionEntry } from '../../src/core/session/entries';
import { collect, scriptedModel, type ScriptStep } from '../support/agentFakes';
import { baseAgentOptions, useAgentFixture } from '../support/agentFixture';
import { nodeRestorePort } from '../support/nodeRestorePort';

const fixture = useAgentFixture();

const port = nodeRestorePort;

const file = (relative: string): string | null => {
  const absolute = nodePath.join(fixture.ws.root, relative);
  return existsSync(absolute) ? readFileSync(absolute, 'utf8') : null;
};

const writes = (...paths: string[]): ScriptStep[] => paths.map((path) => ({ toolCalls: [{ name: 'write_file', args: { path, content: `export const name = '${path}';\n` } }] }));

/** Polls until `found` returns something: lasting evidence on the log, never a transient state. */
async function waitFor<T>(what: string, found: () => T | undefined): Promise<T> {
  for (let attempt = 0; attempt < 2_000; attempt++) {
    const value = found();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const resultFor = (path: string) => (): SessionEntry | undefined =>
  fixture.session.log.tree.entries.find((entry) => entry.type === 'toolResult' && entry.fileChanges?.some((change) => change.path === path));

/** A model that waits at its call `at` until `gate` opens (the request goes on while the person is asked). */
function gated(inner: ModelStream, at: number, gate: Promise<void>): ModelStream {
  let calls = 0;
  return {
    async *stream(request, signal) {
      if (calls++ === at) await gate;
      yield* inner.stream(request, signal);
    },
  };
}

interface WritingRequest {
  ended: Promise<unknown>;
  /** Lets the request go on to write b.ts and c.ts. */
  proceed: () => void;
}

/**
 * Starts a request that writes a.ts, then (once `proceed` is called) b.ts and c.ts, and then waits to be stopped;
 * resolves once a.ts is written. `ended` settles when the request has ended.
 */
async function writingRequest(session: FlowSession, userText: string): Promise<WritingRequest> {
  const run = await session.engine.beginRequest();
  let proceed = (): void => undefined;
  const gate = new Promise<void>((resolve) => (proceed = resolve));
  const model = gated(scriptedModel([...writes('src/a.ts', 'src/b.ts', 'src/c.ts'), { text: 'Checking the files…', hang: true }]), 1, gate);
  const ended = collect(runAgent({ ...baseAgentOptions(fixture, model), userText, signal: run.signal })).finally(() => run.end());
  await waitFor('a.ts written', resultFor('src/a.ts'));
  return { ended, proceed };
}

/** The person answers the "stop the request?" question only after the request wrote b.ts and c.ts (the dialog was up meanwhile). */
function optionsAsking(request: WritingRequest, added: RestoreItem[][]): RestoreOptions {
  return {
    files: { port, roots: [fixture.ws.root] },
    confirmStop: async () => {
      request.proceed();
      await waitFor('c.ts written', resultFor('src/c.ts'));
      return true;
    },
    confirmAdded: (items) => {
      added.push([...items]);
      return Promise.resolve(true);
    },
  };
}

describe('restore while a request runs', () => {
  it('restore-while-running-restores-every-file', async () => {
    const session: FlowSession = { log: fixture.session.log, engine: new SessionEngine<CompactionProposal>() };
    await collect(runAgent({ ...baseAgentOptions(fixture, scriptedModel([{ text: 'Ready.' }])), userText: 'warm up' }));
    const running = await writingRequest(session, 'create the three modules');
    const request = fixture.session.log.path().find((entry) => entry.type === 'user' && entry.text === 'create the three modules')!;
    // Planned while the request runs: only a.ts so far. This is what the person is asked about.
    const plan = planCheckpointRestore(fixture.session.log, request.id)!;
    expect(plan.items.map((item) => item.path)).toEqual(['src/a.ts']);
    expect(plan.modes).toEqual(['both', 'files', 'conversation']);
    const added: RestoreItem[][] = [];
    const done = await restoreCheckpoint(session, plan, 'both', optionsAsking(running, added));
    await running.ended;
    // Planned again once the request had stopped: every file it wrote goes back, and the person was told which were added.
    for (const path of ['src/a.ts', 'src/b.ts', 'src/c.ts']) expect(file(path)).toBeNull();
    expect(done?.files?.changes.map((change) => change.path).sort()).toEqual(['src/a.ts', 'src/b.ts', 'src/c.ts']);
    expect(done?.files?.added).toEqual(['src/b.ts', 'src/c.ts']);
    expect(added.map((items) => items.map((item) => item.path))).toEqual([['src/b.ts', 'src/c.ts']]);
    expect(done?.conversation).toBe(true);
    const path = fixture.session.log.path();
    expect(path.some((entry) => entry.id === request.id)).toBe(false);
    expect(path.at(-1)?.type).toBe('fileRestore');
    expect(session.engine.state).toBe('idle');
  });

  it('restore pre-compaction with files while a request runs restores every file the request wrote', async () => {
    const session: FlowSession = { log: fixture.session.log, engine: new SessionEngine<CompactionProposal>() };
    await collect(runAgent({ ...baseAgentOptions(fixture, scriptedModel([{ text: 'Ready.' }])), userText: 'warm up' }));
    const first = fixture.session.log.path()[0]!;
    const compaction = await fixture.session.log.append({ type: 'compaction', summary: '## Goal\nWarm up.', firstKeptEntryId: first.id, carriedRequestId: null, tokensBefore: 1, tokensAfter: 1, files: { read: [], modified: [] }, edited: false, auto: false });
    const running = await writingRequest(session, 'create the modules after the summary');
    const plan = planCompactionRestore(fixture.session.log, compaction.id);
    expect(plan.items.map((item) => item.path)).toEqual(['src/a.ts']);
    const added: RestoreItem[][] = [];
    const done = await restoreBeforeCompaction(session, plan, 'files', optionsAsking(running, added));
    await running.ended;
    for (const path of ['src/a.ts', 'src/b.ts', 'src/c.ts']) expect(file(path)).toBeNull();
    expect(done?.mode === 'files' && done.files.changes.length).toBe(3);
    // The conversation is back at the compaction point: full history, no summary, the later turn on its branch.
    const path = fixture.session.log.path();
    expect(path.some((entry) => entry.type === 'compaction')).toBe(false);
    expect(path.some((entry) => entry.type === 'user' && entry.text === 'create the modules after the summary')).toBe(false);
    expect(session.engine.state).toBe('idle');
  });

  it('a person who keeps the request running changes nothing; one who keeps a file they changed keeps it', async () => {
    const session: FlowSession = { log: fixture.session.log, engine: new SessionEngine<CompactionProposal>() };
    await collect(runAgent({ ...baseAgentOptions(fixture, scriptedModel([{ text: 'Ready.' }])), userText: 'warm up' }));
    const running = await writingRequest(session, 'write them');
    const request = fixture.session.log.path().find((entry) => entry.type === 'user' && entry.text === 'write them')!;
    const plan = planCheckpointRestore(fixture.session.log, request.id)!;
    const kept = await restoreCheckpoint(session, plan, 'files', { files: { port, roots: [fixture.ws.root] }, confirmStop: () => Promise.resolve(false), confirmAdded: () => Promise.resolve(true) });
    expect(kept).toBeUndefined();
    expect(session.engine.state).toBe('running');
    expect(file('src/a.ts')).not.toBeNull();
    // Now stop it; b.ts and c.ts came after the plan, and the person keeps them as they are.
    const done = await restoreCheckpoint(session, plan, 'files', { ...optionsAsking(running, []), confirmAdded: () => Promise.resolve(false) });
    await running.ended;
    expect(file('src/a.ts')).toBeNull();
    expect(file('src/b.ts')).not.toBeNull();
    expect(file('src/c.ts')).not.toBeNull();
    expect(done?.files?.declined).toEqual(['src/b.ts', 'src/c.ts']);
  });
});

describe('a restore planned on one branch and applied on another', () => {
  it('restoring the files to before a compaction that left the branch says so, as a checkpoint restore does', async () => {
    const session: FlowSession = { log: fixture.session.log, engine: new SessionEngine<CompactionProposal>() };
    await collect(runAgent({ ...baseAgentOptions(fixture, scriptedModel([{ text: 'Ready.' }])), userText: 'warm up' }));
    const first = fixture.session.log.path()[0]!;
    const compaction = await fixture.session.log.append({ type: 'compaction', summary: '## Goal\nWarm up.', firstKeptEntryId: first.id, carriedRequestId: null, tokensBefore: 1, tokensAfter: 1, files: { read: [], modified: [] }, edited: false, auto: false });
    await collect(runAgent({ ...baseAgentOptions(fixture, scriptedModel(writes('src/a.ts'))), userText: 'write a.ts' }));
    const plan = planCompactionRestore(fixture.session.log, compaction.id);
    expect(plan.items.map((item) => item.path)).toEqual(['src/a.ts']);
    // While the person chose, the session went back to a branch without that compaction (Switch Branch, say).
    await fixture.session.log.moveLeaf(compaction.parentId ?? '', 'switch');
    const leaf = fixture.session.log.leafId;
    const options: RestoreOptions = { files: { port, roots: [fixture.ws.root] }, confirmStop: () => Promise.resolve(true), confirmAdded: () => Promise.resolve(true) };
    await expect(restoreBeforeCompaction(session, plan, 'files', options)).rejects.toThrow('That compaction is no longer on this branch of the session; nothing was restored.');
    expect(fixture.session.log.leafId).toBe(leaf);
    expect(file('src/a.ts')).not.toBeNull();
  });

  it('the request stopped is the one running when the person answers, not the one asked about', async () => {
    const engine = new SessionEngine<CompactionProposal>();
    const asked = await engine.beginRequest();
    let next: Awaited<ReturnType<typeof engine.beginRequest>> | undefined;
    const seen = await engine.exclusive(
      'restoring a checkpoint',
      () => Promise.resolve({ stopped: next?.signal.aborted, state: engine.state }),
      async () => {
        // While the question is up, the request asked about ends and another one starts.
        asked.end();
        next = await engine.beginRequest();
        const started = next;
        started.signal.addEventListener('abort', () => started.end(), { once: true });
        return true;
      },
    );
    expect(seen).toEqual({ stopped: true, state: 'busy' });
    expect(engine.state).toBe('idle');
  });
});
