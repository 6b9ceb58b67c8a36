// Importing the real pi-coding-agent fixtures: every tool output survives byte for byte, and their context is provider-valid.
import { readFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importPiFile, importPiSession } from '../../src/core/import/piImport';
import { SessionLog } from '../../src/core/session/sessionLog';
import { buildContext } from '../../src/core/context/contextBuilder';
import type { SessionEntry } from '../../src/core/session/entries';
import { blobRefOf } from '../../src/core/storage/blobStore';
import { tempDir } from '../support/sessionTempDir';
import { validateChatMessages } from '../support/validateChatMessages';
import { PI_FIXTURES_DIR } from '../support/fixturePaths';

const FIXTURES = PI_FIXTURES_DIR;
const NAMES = ['before-compaction.jsonl', 'large-session.jsonl'];

type PiLine = { type: string; message?: { role: string; toolCallId?: string; content?: Array<{ type: string; text?: string }> } };

function piLines(name: string): PiLine[] {
  return readFileSync(nodePath.join(FIXTURES, name), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as PiLine);
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

  it('imports every message as a linear chain', () => {
    const lines = piLines(name);
    const messageLines = lines.filter((line) => line.type === 'message');
    expect(entries.filter((entry) => ['user', 'assistant', 'toolResult'].includes(entry.type))).toHaveLength(messageLines.length);
    expect(log.path()).toHaveLength(entries.length);
    expect(log.tree.leaves()).toHaveLength(1);
  });

  it('keeps every tool-result text byte for byte, inline or in a blob', async () => {
    const expected = piLines(name).flatMap((line) =>
      line.message?.role === 'toolResult' ? [(line.message.content ?? []).filter((part) => part.type === 'text').map((part) => part.text ?? '').join('\n')] : [],
    );
    const results = entries.filter((entry) => entry.type === 'toolResult');
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
    expect(entries.filter((entry) => entry.type === 'user' && entry.text.startsWith('[Shell command run by the user'))).toHaveLength(3);
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
