// Importing the real pi-coding-agent fixtures: every tool output survives byte for byte, and their context is provider-valid.
import { readFileSync, writeFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importPiFile, importPiSession } from '../../src/core/import/piImport';
import { SessionLog } from '../../src/core/session/sessionLog';
import { SessionTree } from '../../src/core/session/sessionTree';
import { buildContext } from '../../src/core/context/contextBuilder';
import type { SessionEntry, ToolResultEntry } from '../../src/core/session/entries';
import { blobRefOf } from '../../src/core/storage/blobStore';
import { tempDir } from '../support/sessionTempDir';
import { validateChatMessages } from '../support/validateChatMessages';
import { PI_FIXTURES_DIR } from '../support/fixturePaths';

const FIXTURES = PI_FIXTURES_DIR;
const NAMES = ['before-compaction.jsonl', 'large-session.jsonl'];

type PiLine = { type: string; message?: { role: string; toolCallId?: string; output?: string; content?: Array<{ type: string; text?: string }> } };

const isUserBash = (entry: SessionEntry): boolean => entry.type === 'toolResult' && entry.toolCallId.startsWith('user-bash-');

function piLines(name: string): PiLine[] {
  return readFileSync(nodePath.join(FIXTURES, name), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as PiLine);
}

function counterIds(): () => string {
  let next = 0;
  return () => `id${next++}`;
}

let dir: string;
let cleanup: () => void;
beforeAll(() => ({ dir, cleanup } = tempDir()));
afterAll(() => cleanup());

describe.each(NAMES)('import of %s', (name) => {
  let log: SessionLog;
  let entries: SessionEntry[];
  beforeAll(async () => {
    const out = nodePath.join(dir, name);
    const result = await importPiFile(nodePath.join(FIXTURES, name), out);
    expect(result.warnings).toEqual([]);
    const opened = await SessionLog.open(out, { readOnly: true });
    expect(opened.warnings).toEqual([]);
    log = opened.log;
    entries = log.tree.entries;
  });

  it('imports every message as a linear chain (a shell command the user ran as a call and its result)', () => {
    const lines = piLines(name);
    const messageLines = lines.filter((line) => line.type === 'message');
    const bashLines = messageLines.filter((line) => line.message?.role === 'bashExecution');
    expect(entries.filter((entry) => ['user', 'assistant', 'toolResult'].includes(entry.type))).toHaveLength(messageLines.length + bashLines.length);
    expect(log.path()).toHaveLength(entries.length);
    expect(log.tree.leaves()).toHaveLength(1);
  });

  it('keeps every tool-result text byte for byte, inline or in a blob', async () => {
    const expected = piLines(name).flatMap((line) =>
      line.message?.role === 'toolResult' ? [(line.message.content ?? []).filter((part) => part.type === 'text').map((part) => part.text ?? '').join('\n')] : [],
    );
    const results = entries.filter((entry): entry is ToolResultEntry => entry.type === 'toolResult' && !isUserBash(entry));
    expect(results).toHaveLength(expected.length);
    let blobbed = 0;
    for (const [i, entry] of results.entries()) {
      const full = entry.blob ? await log.blobs.read(entry.blob) : entry.content;
      if (entry.blob) blobbed++;
      expect(Buffer.from(full, 'utf8').equals(Buffer.from(expected[i] ?? '', 'utf8'))).toBe(true);
    }
    if (name === 'before-compaction.jsonl') expect(blobbed).toBeGreaterThan(0);
  });

  it('builds a context that a strict provider accepts, from the leaf and from before each compaction', () => {
    const built = buildContext(log.path(), { systemPrompt: 'system' });
    expect(validateChatMessages(built.messages)).toEqual([]);
    for (const compaction of log.tree.compactionsOnPath(log.leafId)) {
      const before = buildContext(log.tree.pathTo(compaction.parentId));
      expect(validateChatMessages(before.messages)).toEqual([]);
    }
  });
});

describe('pi compactions and messages', () => {
  it('maps compactions, usage, model changes, aborted messages, bash executions and thinking', async () => {
    const out = nodePath.join(dir, 'check.jsonl');
    await importPiFile(nodePath.join(FIXTURES, 'before-compaction.jsonl'), out);
    const { log } = await SessionLog.open(out, { readOnly: true });
    const lines = piLines('before-compaction.jsonl');
    const compactions = log.tree.entries.filter((entry) => entry.type === 'compaction');
    expect(compactions.map((entry) => [entry.tokensBefore, entry.tokensAfter])).toEqual([[175004, 0], [185014, 0]]);
    // firstKeptEntryIndex 293 and 551 are user lines: the kept entries are their imported user messages.
    const kept = compactions.map((entry) => log.tree.get(entry.firstKeptEntryId ?? ''));
    const keptTexts = [293, 551].map((index) => (lines[index]?.message?.content ?? []).map((part) => part.text).join('\n'));
    expect(kept.map((entry) => (entry?.type === 'user' ? entry.text : undefined))).toEqual(keptTexts);
    const built = buildContext(log.path());
    expect(built.compactionId).toBe(compactions[1]?.id);
    expect(built.items[0]?.kind).toBe('summary');
    expect(built.items[1]?.entryId).toBe(compactions[1]?.firstKeptEntryId);
    const entries = log.tree.entries;
    expect(entries.filter((entry) => entry.type === 'modelChange')).toHaveLength(5);
    expect(entries.filter((entry) => entry.type === 'assistant' && entry.stopReason === 'aborted')).toHaveLength(18);
    expect(entries.filter((entry) => entry.type === 'assistant' && entry.reasoning)).not.toHaveLength(0);
  });

  it('imports bashExecution messages as capped, prunable tool exchanges whose full output stays readable', async () => {
    const out = nodePath.join(dir, 'bash.jsonl');
    await importPiFile(nodePath.join(FIXTURES, 'before-compaction.jsonl'), out);
    const { log } = await SessionLog.open(out, { readOnly: true });
    const outputs = piLines('before-compaction.jsonl').flatMap((line) => (line.message?.role === 'bashExecution' ? [line.message.output ?? ''] : []));
    const results = log.tree.entries.filter(isUserBash);
    expect(results).toHaveLength(3);
    let capped = 0;
    for (const [i, result] of results.entries()) {
      if (result.type !== 'toolResult') throw new Error('expected a tool result');
      const call = log.tree.parentOfNode(result.id);
      expect(call?.type === 'assistant' && call.toolCalls.map((item) => item.id)).toEqual([result.toolCallId]);
      expect(result.content.startsWith('[Shell command run by the user, not by the assistant]')).toBe(true);
      // Capped like every tool output (24k chars), the whole output in a blob.
      expect(result.content.length).toBeLessThanOrEqual(24_000);
      const full = result.blob ? await log.blobs.read(result.blob) : result.content;
      if (result.blob) capped++;
      expect(full).toContain(outputs[i] ?? '');
      // The context sends it as a tool exchange, and a prune can hide it like any tool output.
      const built = buildContext(log.tree.pathTo(result.id));
      expect(built.items.at(-1)).toMatchObject({ entryId: result.id, message: { role: 'tool', tool_call_id: result.toolCallId } });
      const pruned = buildContext([...log.tree.pathTo(result.id), { type: 'prune', id: 'p', parentId: result.id, timestamp: 't', toolResultIds: [result.id], tokensFreed: 1, reason: 'manual' }]);
      expect(pruned.items.at(-1)).toMatchObject({ entryId: result.id, pruned: true });
    }
    expect(capped).toBe(1);
    expect(validateChatMessages(buildContext(log.path()).messages)).toEqual([]);
  });

  it('ignores a UTF-8 byte-order mark at the start of the file', () => {
    const text = readFileSync(nodePath.join(FIXTURES, 'large-session.jsonl'), 'utf8');
    const plain = importPiSession(text, { newId: counterIds() });
    const marked = importPiSession(`\uFEFF${text}`, { newId: counterIds() });
    expect(marked.warnings).toEqual([]);
    expect(marked.entries).toEqual(plain.entries);
    expect(marked.header).toEqual(plain.header);
  });

  it('caps long outputs by characters only, naming the entry to read back, and keeps the full text for a blob', () => {
    const result = (text: string) =>
      JSON.stringify({ type: 'message', timestamp: 't', message: { role: 'toolResult', toolCallId: 'c1', toolName: 'bash', content: [{ type: 'text', text }] } });
    const manyLines = Array.from({ length: 3000 }, (_, i) => `l${i}`).join('\n');
    const long = Array.from({ length: 400 }, (_, i) => `line ${i} ${'é😀'.repeat(10)}`).join('\n');
    const text = ['{"type":"session","id":"p","timestamp":"2025-01-01T00:00:00Z"}', result(manyLines), result(long)].join('\n');
    const imported = importPiSession(text, { maxInlineChars: 4000 });
    const [whole, capped] = imported.entries;
    if (whole?.type !== 'toolResult' || capped?.type !== 'toolResult') throw new Error('expected two tool results');
    expect(capped.content.length).toBeLessThanOrEqual(4000);
    expect(capped.content).toContain(`read_stored_output {"entryId":"${capped.id}"`);
    expect(capped.blob).toEqual(blobRefOf(long));
    expect(imported.blobs.map((blob) => blob.text)).toContain(long);
    // 3,000 short lines within the char limit stay whole: a line count alone never caps an imported output.
    const roomy = importPiSession(text, { maxInlineChars: 20_000 }).entries[0];
    if (roomy?.type !== 'toolResult') throw new Error('expected a tool result');
    expect(roomy.content).toBe(manyLines);
    expect(roomy.blob).toBeUndefined();
  });

  it('maps usage fields as documented', () => {
    const text = [
      '{"type":"session","id":"p","timestamp":"2025-01-01T00:00:00Z","cwd":"/x"}',
      '{"type":"message","timestamp":"t","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"hi"},{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"a"}}],"usage":{"input":10,"output":5,"cacheRead":100,"cacheWrite":7},"stopReason":"toolUse","model":"m"}}',
      '{"type":"message","timestamp":"t","message":{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"isError":true}}',
      'not json',
    ].join('\n');
    const result = importPiSession(text);
    expect(result.header).toMatchObject({ cwd: '/x', importedFrom: { format: 'pi', sessionId: 'p' } });
    expect(result.entries[0]).toMatchObject({
      type: 'assistant', text: 'hi', reasoning: 'hmm', model: 'm', stopReason: 'toolCalls',
      toolCalls: [{ id: 'c1', name: 'read', arguments: '{"path":"a"}' }],
      usage: { promptTokens: 117, cachedTokens: 100, cacheWriteTokens: 7, completionTokens: 5 },
    });
    expect(result.entries[1]).toMatchObject({ type: 'toolResult', content: 'a\nb', isError: true, parentId: result.entries[0]?.id });
    expect(result.warnings).toEqual(['line 4: not a JSON object, skipped']);
    expect(() => importPiSession('{"type":"message"}')).toThrow(/not a pi session/);
  });
});

type Json = Record<string, unknown>;

/** The fixture as pi's version 1→2 migration writes it: ids, a parentId chain, compactions naming the kept entry by id. */
function treeFormat(name: string): Json[] {
  const lines = readFileSync(nodePath.join(FIXTURES, name), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Json);
  const ids = lines.map((_, index) => `e${index}`);
  return lines.map((line, index) => {
    if (index === 0) return { ...line, version: 3 };
    const { firstKeptEntryIndex, ...rest } = line;
    const kept = typeof firstKeptEntryIndex === 'number' ? { firstKeptEntryId: ids[firstKeptEntryIndex] } : {};
    return { ...rest, ...kept, id: ids[index], parentId: index === 1 ? null : ids[index - 1] };
  });
}

const message = (id: string, parentId: string, role: 'user' | 'assistant', text: string): Json => ({
  type: 'message', id, parentId, timestamp: '2025-12-09T02:00:00.000Z',
  message: { role, content: [{ type: 'text', text }], ...(role === 'assistant' ? { stopReason: 'stop' } : {}) },
});

const texts = (path: readonly SessionEntry[]): string[] => path.flatMap((entry) => (entry.type === 'user' || entry.type === 'assistant' ? [entry.text] : []));

describe('pi-tree-import', () => {
  const main = treeFormat('before-compaction.jsonl');
  const last = main[main.length - 1] as Json;
  // pi's /tree went back to line 700 and the conversation went on from there: the lines after it are the abandoned branch.
  const fork = main[700] as Json;
  const branch = [
    message('b1', String(fork.id), 'user', 'take the other approach'),
    message('b2', 'b1', 'assistant', 'switching approach'),
    { type: 'label', id: 'b3', parentId: 'b2', timestamp: 't', targetId: 'b1', label: 'retry' },
    { type: 'custom', id: 'b4', parentId: 'b3', timestamp: 't', customType: 'ext', data: {} },
  ];
  const jsonl = (lines: readonly Json[]): string => `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
  const importTree = async (lines: readonly Json[], file: string): Promise<{ log: SessionLog; warnings: string[] }> => {
    const input = nodePath.join(dir, `${file}.pi.jsonl`);
    writeFileSync(input, jsonl(lines));
    const result = await importPiFile(input, nodePath.join(dir, `${file}.jsonl`));
    const { log } = await SessionLog.open(nodePath.join(dir, `${file}.jsonl`), { readOnly: true });
    return { log, warnings: result.warnings };
  };

  it('imports every branch and continues on the one pi had selected (its last entry)', async () => {
    const { log, warnings } = await importTree([...main, ...branch], 'tree-live-branch');
    expect(warnings).toEqual(['1 extension state entry was not imported (pi never sends them to the model)']);
    const v1 = importPiSession(readFileSync(nodePath.join(FIXTURES, 'before-compaction.jsonl'), 'utf8'));
    const messages = (entries: readonly SessionEntry[]) => entries.filter((entry) => ['user', 'assistant', 'toolResult'].includes(entry.type)).length;
    // The whole tree: every message of both branches.
    expect(messages(log.tree.entries)).toBe(messages(v1.entries) + 2);
    expect(log.tree.leaves()).toHaveLength(2);
    const path = log.path();
    expect(texts(path).slice(-2)).toEqual(['take the other approach', 'switching approach']);
    expect(path.at(-1)).toMatchObject({ type: 'label', label: 'retry', targetId: path.at(-3)?.id });
    // Nothing of the abandoned branch reaches the model.
    const abandoned = texts(v1.entries.slice(v1.entries.findIndex((entry) => entry.timestamp === fork.timestamp) + 1));
    const sent = new Set(buildContext(path).messages.map((item) => item.content));
    expect(abandoned.filter((text) => text !== '' && sent.has(text))).toEqual([]);
    expect(validateChatMessages(buildContext(path, { systemPrompt: 'system' }).messages)).toEqual([]);
    // Compactions on the live branch name their kept entries by pi id: mapped to the same messages as in version 1.
    const keptTexts = (entries: readonly SessionEntry[]): string[][] => {
      const byId = new Map(entries.map((entry) => [entry.id, entry]));
      return entries.flatMap((entry) => (entry.type === 'compaction' ? [texts([byId.get(entry.firstKeptEntryId ?? '') ?? entry])] : []));
    };
    const onPath = keptTexts(path);
    expect(onPath.length).toBeGreaterThan(0);
    expect(onPath.every((kept) => kept.length === 1)).toBe(true);
    expect(onPath).toEqual(keptTexts(v1.entries).slice(0, onPath.length));
  });

  it('moves the leaf back when pi last worked on an earlier branch', async () => {
    const back = { type: 'custom', id: 'c1', parentId: last.id, timestamp: 't', customType: 'ext', data: {} };
    const { log } = await importTree([...main, ...branch, back], 'tree-earlier-branch');
    const v1 = importPiSession(readFileSync(nodePath.join(FIXTURES, 'before-compaction.jsonl'), 'utf8'));
    expect(log.tree.entries.at(-1)).toMatchObject({ type: 'leaf', reason: 'switch' });
    expect(texts(log.path())).toEqual(texts(v1.entries));
    expect(texts(log.path())).not.toContain('take the other approach');
    expect(buildContext(log.path()).compactionId).toBe(log.tree.compactionsOnPath(log.leafId).at(-1)?.id);
  });

  it('attaches lines whose parent is missing, themselves or later to the entry before them, without looping', () => {
    const lines = [
      { type: 'session', version: 3, id: 's', timestamp: 't' },
      message('u1', 'nobody', 'user', 'first'),
      message('a1', 'a1', 'assistant', 'names itself'),
      message('u2', 'a2', 'user', 'names a later entry'),
      message('a2', 'u2', 'assistant', 'closes the ring'),
    ];
    const result = importPiSession(lines.map((line) => JSON.stringify(line)).join('\n'));
    expect(result.warnings.filter((warning) => warning.includes('is not an earlier entry'))).toHaveLength(3);
    const tree = new SessionTree(result.entries);
    expect(texts(tree.pathTo(tree.leafId))).toEqual(['first', 'names itself', 'names a later entry', 'closes the ring']);
  });
});
