// The file-backed log: appends survive reload, torn tails and corrupt lines are recovered without losing bytes.
import { existsSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionLog } from '../../src/core/session/sessionLog';
import { quarantinePath } from '../../src/core/session/quarantine';
import { buildContext } from '../../src/core/context/contextBuilder';
import { isMessageEntry } from '../../src/core/session/entries';
import { importPiFile } from '../../src/core/import/piImport';
import { PI_FIXTURES_DIR } from '../support/fixturePaths';
import { validateChatMessages } from '../support/validateChatMessages';
import { FaultyFileIo, tempDir } from '../support/sessionTempDir';

let dir: string;
let cleanup: () => void;
let file: string;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  file = nodePath.join(dir, 's1.jsonl');
});
afterEach(() => cleanup());

async function seed(count: number): Promise<string[]> {
  const log = await SessionLog.create(file, { id: 's1', title: 'test' });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push((await log.append({ type: 'user', text: `message ${i} ✓` })).id);
  await log.close();
  return ids;
}

describe('SessionLog', () => {
  it('writes a header and one line per entry, chained to the leaf, readable after reload', async () => {
    const log = await SessionLog.create(file, { id: 's1', title: 't' });
    const u = await log.append({ type: 'user', text: 'hi' });
    const a = await log.append({ type: 'assistant', text: 'hello', toolCalls: [] });
    expect(a.parentId).toBe(u.id);
    expect(u.parentId).toBeNull();
    await log.close();
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines).toHaveLength(4);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ type: 'session', version: 1, id: 's1' });
    const { log: again, warnings } = await SessionLog.open(file, { readOnly: true });
    expect(warnings).toEqual([]);
    expect(again.path().map((entry) => entry.id)).toEqual([u.id, a.id]);
    expect(again.leafId).toBe(a.id);
  });

  it('serializes concurrent appends into a chain', async () => {
    const log = await SessionLog.create(file);
    const entries = await Promise.all(Array.from({ length: 20 }, (_, i) => log.append({ type: 'user', text: `m${i}` })));
    await log.close();
    entries.forEach((entry, i) => expect(entry.parentId).toBe(i === 0 ? null : entries[i - 1]?.id));
    const { log: again } = await SessionLog.open(file, { readOnly: true });
    expect(again.path()).toEqual(entries);
  });

  it('restores the state before a compaction and keeps both branches', async () => {
    const log = await SessionLog.create(file);
    await log.append({ type: 'user', text: 'u1' });
    const a1 = await log.append({ type: 'assistant', text: 'a1', toolCalls: [] });
    const before = buildContext(log.path());
    const compaction = await log.append({
      type: 'compaction', summary: 's', firstKeptEntryId: null, tokensBefore: 9, tokensAfter: 1, files: { read: [], modified: [] }, edited: false, auto: false,
    });
    const after = await log.append({ type: 'user', text: 'u2' });
    await log.restoreBeforeCompaction(compaction.id);
    expect(log.leafId).toBe(a1.id);
    expect(buildContext(log.path())).toEqual(before);
    const fork = await log.append({ type: 'user', text: 'u2 again' });
    expect(fork.parentId).toBe(a1.id);
    expect(log.tree.leaves().map((entry) => entry.id)).toEqual([fork.id, after.id]);
    await log.moveLeaf(after.id);
    await log.close();
    const { log: again } = await SessionLog.open(file, { readOnly: true });
    expect(again.leafId).toBe(after.id);
    expect(again.tree.compactionsOnPath(again.leafId).map((entry) => entry.id)).toEqual([compaction.id]);
  });

  it('rejects appends when read-only, and moving the leaf to an unknown id', async () => {
    await seed(1);
    const { log } = await SessionLog.open(file, { readOnly: true });
    await expect(log.append({ type: 'user', text: 'x' })).rejects.toThrow(/read-only/);
    const { log: writable } = await SessionLog.open(file);
    await expect(writable.moveLeaf('nope')).rejects.toThrow(/no such entry/);
    await writable.close();
  });

  it('gives a clear error for a missing file, a non-session file and a future schema version', async () => {
    await expect(SessionLog.open(nodePath.join(dir, 'missing.jsonl'))).rejects.toThrow(/session file not found/);
    writeFileSync(file, 'hello\n');
    await expect(SessionLog.open(file)).rejects.toThrow(/not a session log/);
    writeFileSync(file, '{"type":"session","version":99,"id":"x","timestamp":"t"}\n');
    await expect(SessionLog.open(file)).rejects.toThrow(/version 99 is newer/);
  });

  it('recovers the committed prefix when the last entry is cut at any byte offset', async () => {
    const ids = await seed(4);
    const full = readFileSync(file);
    const lastTwoStart = full.lastIndexOf('\n', full.lastIndexOf('\n', full.length - 2) - 1) + 1;
    for (let cut = lastTwoStart; cut <= full.length; cut++) {
      writeFileSync(file, full.subarray(0, cut));
      const committedLines = full.subarray(0, cut).toString('utf8').split('\n').length - 2;
      const { log: readOnly } = await SessionLog.open(file, { readOnly: true });
      expect(readOnly.path().map((entry) => entry.id)).toEqual(ids.slice(0, committedLines));
      const { log, warnings } = await SessionLog.open(file);
      expect(warnings.length).toBe(cut === full.length || full[cut - 1] === 0x0a ? 0 : 1);
      const next = await log.append({ type: 'user', text: 'after recovery' });
      await log.close();
      const { log: reloaded, warnings: clean } = await SessionLog.open(file, { readOnly: true });
      expect(clean).toEqual([]);
      expect(reloaded.path().map((entry) => entry.id)).toEqual([...ids.slice(0, committedLines), next.id]);
    }
    // Every torn tail went to quarantine, none was glued to the next line.
    const quarantined = readFileSync(quarantinePath(file), 'utf8').trim().split('\n');
    expect(quarantined.length).toBeGreaterThan(0);
  });

  it('moves a corrupt middle line to quarantine byte for byte and keeps loading', async () => {
    const ids = await seed(3);
    const lines = readFileSync(file, 'utf8').split('\n');
    const garbage = '{"type":"user","id":"broken", oops \u00e9';
    lines.splice(2, 0, garbage);
    writeFileSync(file, lines.join('\n'));
    const { log, warnings } = await SessionLog.open(file);
    expect(warnings).toEqual([expect.stringContaining('line 3 is corrupt')]);
    expect(log.tree.entries.map((entry) => entry.id)).toEqual(ids);
    await log.close();
    const record = JSON.parse(readFileSync(quarantinePath(file), 'utf8').trim()) as { text: string; line: number };
    expect(record.text).toBe(`${garbage}\n`);
    expect(record.line).toBe(3);
    const { warnings: after } = await SessionLog.open(file, { readOnly: true });
    expect(after).toEqual([]);
  });

  it('sets aside a line of invalid UTF-8 between multibyte lines by its exact bytes: the file keeps every other byte', async () => {
    const ids = await seed(4);
    const original = readFileSync(file);
    const lines = original.toString('utf8').split('\n');
    const at = Buffer.byteLength(`${lines.slice(0, 3).join('\n')}\n`, 'utf8');
    const bad = Buffer.from([0x7b, 0xc3, 0x28, 0xe2, 0x9c, 0x0a]);
    writeFileSync(file, Buffer.concat([original.subarray(0, at), bad, original.subarray(at)]));
    const { log, warnings } = await SessionLog.open(file);
    expect(warnings).toEqual([expect.stringContaining('line 4 is corrupt')]);
    expect(log.tree.entries.map((entry) => entry.id)).toEqual(ids);
    await log.close();
    expect(readFileSync(file).equals(original)).toBe(true);
  });

  it('after a failed append, cuts the partial line off before the next append', async () => {
    const io = new FaultyFileIo();
    const log = await SessionLog.create(file, {}, { io });
    const first = await log.append({ type: 'user', text: 'ok' });
    io.failNextAppend = { partial: 10 };
    await expect(log.append({ type: 'user', text: 'lost' })).rejects.toThrow(/ENOSPC/);
    expect(log.leafId).toBe(first.id);
    const second = await log.append({ type: 'user', text: 'next' });
    await log.close();
    const { log: again, warnings } = await SessionLog.open(file, { readOnly: true });
    expect(warnings).toEqual([]);
    expect(again.path().map((entry) => entry.id)).toEqual([first.id, second.id]);
    expect(readFileSync(quarantinePath(file), 'utf8')).toContain('bytes of a failed append');
  });

  it('a torn line left with no newline is not committed even when it parses', async () => {
    const ids = await seed(2);
    truncateSync(file, readFileSync(file).length - 1);
    const { log, warnings } = await SessionLog.open(file, { readOnly: true });
    expect(warnings).toHaveLength(1);
    expect(log.path().map((entry) => entry.id)).toEqual(ids.slice(0, 1));
    expect(existsSync(quarantinePath(file))).toBe(false);
  });

  it('migrates an older schema with one step per version, keeping a backup of the original', async () => {
    const v0 = '{"type":"session","version":0,"id":"old","timestamp":"t"}\n{"type":"user","id":"u","parentId":null,"timestamp":"t","body":"legacy"}\n';
    writeFileSync(file, v0);
    const migrations = { 0: (line: Record<string, unknown>) => (line.type === 'user' ? { ...line, text: line.body } : line) };
    await expect(SessionLog.open(file)).rejects.toThrow(/no migration from session schema version 0 to 1/);
    const { log } = await SessionLog.open(file, { migrations });
    expect(log.header.version).toBe(1);
    expect(log.path()).toMatchObject([{ id: 'u', text: 'legacy' }]);
    await log.append({ type: 'user', text: 'new' });
    await log.close();
    expect(readFileSync(`${file}.v0.bak`, 'utf8')).toBe(v0);
    const { log: again, warnings } = await SessionLog.open(file, { readOnly: true });
    expect(warnings).toEqual([]);
    expect(again.path().map((entry) => entry.type === 'user' && entry.text)).toEqual(['legacy', 'new']);
  });
});

describe('hostile lines', () => {
  /** Rewrites line `index` (0 = header) of the session file with `change`. */
  function editLine(index: number, change: (line: Record<string, unknown>) => Record<string, unknown>): void {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines[index] = JSON.stringify(change(JSON.parse(lines[index] ?? '') as Record<string, unknown>));
    writeFileSync(file, lines.join('\n'));
  }

  it('self-parent-entry-is-quarantined', async () => {
    const ids = await seed(4);
    editLine(2, (line) => ({ ...line, parentId: line.id }));
    const selfLine = readFileSync(file, 'utf8').split('\n')[2];
    const { log, warnings } = await SessionLog.open(file);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`line 3 is corrupt (entry ${ids[1]} names itself as its parent) and was set aside`);
    expect(warnings[0]).toContain(`entry ${ids[2]} (line 4) now hangs from entry ${ids[0]}`);
    expect(log.path().map((entry) => entry.id)).toEqual([ids[0], ids[2], ids[3]]);
    const next = await log.append({ type: 'user', text: 'after' });
    await log.close();
    expect((JSON.parse(readFileSync(quarantinePath(file), 'utf8').trim()) as { text: string }).text).toBe(`${selfLine}\n`);
    const { log: again, warnings: quiet } = await SessionLog.open(file, { readOnly: true });
    expect(quiet).toEqual([]);
    expect(again.path().map((entry) => entry.id)).toEqual([ids[0], ids[2], ids[3], next.id]);
  });

  it('a-self-parent-after-blank-and-corrupt-lines-is-quarantined-by-its-own-line-and-bytes', async () => {
    const ids = await seed(5);
    editLine(3, (line) => ({ ...line, parentId: line.id }));
    const lines = readFileSync(file, 'utf8').split('\n');
    const selfLine = lines[3] ?? '';
    // A blank line and a corrupt one above it shift every later entry's line from its position.
    lines.splice(1, 0, '', '{not json');
    writeFileSync(file, lines.join('\n'));
    const { log, warnings } = await SessionLog.open(file);
    expect(warnings.some((warning) => warning.includes(`line 6 is corrupt (entry ${ids[2]} names itself as its parent)`))).toBe(true);
    expect(log.path().map((entry) => entry.id)).toEqual([ids[0], ids[1], ids[3], ids[4]]);
    await log.close();
    const quarantined = readFileSync(quarantinePath(file), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { text: string; line: number });
    expect(quarantined.find((record) => record.line === 6)?.text).toBe(`${selfLine}\n`);
  });

  it('parent-cycle-never-loops: a ring of parents in the file is set aside with a warning, the rest loads', async () => {
    const ids = await seed(7);
    // a→b→a (line 3 names the later line 4), and x→y→z→x (line 5 names the later line 7).
    editLine(2, (line) => ({ ...line, parentId: ids[2] }));
    editLine(4, (line) => ({ ...line, parentId: ids[5] }));
    const { log, warnings } = await SessionLog.open(file);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain(`line 3 is corrupt (entry ${ids[1]} has a parent later in the file, closing a loop of parents`);
    expect(warnings[1]).toContain(`line 5 is corrupt (entry ${ids[3]} has a parent later in the file`);
    expect(log.path().map((entry) => entry.id)).toEqual([ids[0], ids[2], ids[4], ids[5], ids[6]]);
    for (const entry of log.tree.entries) expect(log.tree.pathTo(entry.id).length).toBeLessThanOrEqual(log.tree.entries.length);
    await log.close();
    const { warnings: quiet } = await SessionLog.open(file, { readOnly: true });
    expect(quiet).toEqual([]);
  });

  it('accepts a UTF-8 byte-order mark at the start of the file and leaves it there', async () => {
    const ids = await seed(2);
    const marked = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), readFileSync(file)]);
    writeFileSync(file, marked);
    const { log, warnings } = await SessionLog.open(file);
    expect(warnings).toEqual([]);
    expect(log.header.id).toBe('s1');
    expect(log.path().map((entry) => entry.id)).toEqual(ids);
    const next = await log.append({ type: 'user', text: 'after the mark' });
    await log.close();
    expect(readFileSync(file).subarray(0, marked.length).equals(marked)).toBe(true);
    const { log: again } = await SessionLog.open(file, { readOnly: true });
    expect(again.path().map((entry) => entry.id)).toEqual([...ids, next.id]);
  });

  it('unknown-entry-type-survives-writable-open', async () => {
    const log = await SessionLog.create(file, { id: 's1' });
    const u1 = await log.append({ type: 'user', text: 'u1' });
    const a1 = await log.append({ type: 'assistant', text: 'a1', toolCalls: [] });
    await log.close();
    // A newer version wrote a kind this one does not know, then went on below it; a damaged line follows.
    const future = JSON.stringify({ type: 'branchSummary', id: 'f1', parentId: a1.id, timestamp: 't', summary: 'elsewhere', extra: { nested: [1, null] } });
    const below = JSON.stringify({ type: 'user', id: 'u2', parentId: 'f1', timestamp: 't', text: 'u2' });
    writeFileSync(file, `${readFileSync(file, 'utf8')}${future}\n{"type":"user","id":"bro\n${below}\n`);
    const { log: opened, warnings } = await SessionLog.open(file);
    expect(warnings).toEqual([expect.stringContaining('line 5 is corrupt')]);
    expect(opened.path().map((entry) => [entry.id, entry.type])).toEqual([[u1.id, 'user'], [a1.id, 'assistant'], ['f1', 'opaque'], ['u2', 'user']]);
    const a2 = await opened.append({ type: 'assistant', text: 'a2', toolCalls: [] });
    expect(a2.parentId).toBe('u2');
    const built = buildContext(opened.path(), { systemPrompt: 's' });
    expect(built.messages.map((message) => message.content)).toEqual(['s', 'u1', 'a1', 'u2', 'a2']);
    await opened.close();
    // Kept byte for byte, in place, through the repair that rewrote the file without the damaged line.
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines[3]).toBe(future);
    expect(lines[4]).toBe(below);
    const { log: again, warnings: quiet } = await SessionLog.open(file);
    expect(quiet).toEqual([]);
    expect(again.path().map((entry) => entry.id)).toEqual([u1.id, a1.id, 'f1', 'u2', a2.id]);
    await again.close();
  });
});

describe('damaged-middle-line-keeps-history', () => {
  it('keeps ≥ 99 % of a real session on the path when one middle line is damaged, and says so once', async () => {
    await importPiFile(nodePath.join(PI_FIXTURES_DIR, 'before-compaction.jsonl'), file);
    const { log: before } = await SessionLog.open(file, { readOnly: true });
    const original = before.path();
    const originalMessages = original.filter(isMessageEntry).length;
    const lines = readFileSync(file, 'utf8').split('\n');
    const middle = Math.floor(lines.length / 2);
    const damaged = lines[middle] ?? '';
    lines[middle] = damaged.slice(0, Math.floor(damaged.length / 2));
    writeFileSync(file, lines.join('\n'));

    const { log, warnings } = await SessionLog.open(file);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(new RegExp(`line ${middle + 1} is corrupt .*now hangs from entry ${original[middle - 2]?.id}`));
    const path = log.path();
    expect(path.length).toBeGreaterThanOrEqual(Math.ceil(original.length * 0.99));
    expect(path.length).toBe(original.length - 1);
    expect(path.filter(isMessageEntry).length).toBeGreaterThanOrEqual(Math.ceil(originalMessages * 0.99));
    expect(path[0]?.id).toBe(original[0]?.id);
    expect(validateChatMessages(buildContext(path).messages)).toEqual([]);
    await log.close();

    // Told once: the line is in quarantine now, later opens reattach silently and keep the same history.
    expect(readFileSync(quarantinePath(file), 'utf8')).toContain('"line":' + String(middle + 1));
    const { log: again, warnings: quiet } = await SessionLog.open(file);
    expect(quiet).toEqual([]);
    expect(again.path().map((entry) => entry.id)).toEqual(path.map((entry) => entry.id));
    await again.close();
  });
});
