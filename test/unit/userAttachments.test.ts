// Files and selections attached in the chat: stored in the user entry, sent after the typed text, capped, counted.
import { describe, expect, it } from 'vitest';
import { runAgent } from '../../src/core/agent/agentLoop';
import type { CountingDeps } from '../../src/core/budget/meter';
import { measureContext } from '../../src/core/budget/meter';
import { thresholdsFor } from '../../src/core/budget/thresholds';
import { entryBlock } from '../../src/core/compaction/summaryTranscript';
import { attachmentLimits, prepareAttachments, type AttachmentSource } from '../../src/core/agent/userAttachments';
import { userContent } from '../../src/core/context/userContent';
import type { UserEntry } from '../../src/core/session/entries';
import { validateEntry } from '../../src/core/session/entryValidation';
import { SessionLog } from '../../src/core/session/sessionLog';
import { defaultSettings } from '../../src/core/settings/settings';
import { countEntry } from '../support/countOne';
import { ToolRegistry } from '../../src/core/tools/toolRegistry';
import { renderTranscript } from '../../src/core/tools/transcriptText';
import { collect, scriptedModel } from '../support/agentFakes';
import { baseAgentOptions, useAgentFixture } from '../support/agentFixture';

const fixture = useAgentFixture();
const numbered = (count: number, from = 1): string => Array.from({ length: count }, (_, i) => `line ${from + i} of the file`).join('\n');

describe('user attachments', () => {
  it('file-attachment-reaches-the-model-and-is-counted', async () => {
    const sources: AttachmentSource[] = [
      { name: 'src/a.ts', text: 'export const answer = 41;\n', readable: true },
      { name: 'src/b.ts', text: numbered(3, 10), readable: true, lines: { start: 10, end: 12 } },
    ];
    const { attachments, shortened } = prepareAttachments(sources, thresholdsFor(128_000, defaultSettings()));
    expect(shortened).toEqual([]);
    const model = scriptedModel([{ text: 'The answer is 41.' }]);
    const registry = new ToolRegistry();
    await collect(runAgent({ ...baseAgentOptions(fixture, model), registry, userText: 'What does a.ts export?', userAttachments: attachments, systemPrompt: 'system' }));

    const sent = model.requests[0]?.messages[1];
    expect(sent).toEqual({
      role: 'user',
      content: [
        'What does a.ts export?',
        '<attachment label="src/a.ts">\nexport const answer = 41;\n</attachment>',
        '<attachment label="src/b.ts, lines 10-12">\nline 10 of the file\nline 11 of the file\nline 12 of the file\n</attachment>',
      ].join('\n\n'),
    });

    // Stored in the entry, read back from the log file as written.
    const user = fixture.session.log.path()[0] as UserEntry;
    expect(user).toMatchObject({ type: 'user', text: 'What does a.ts export?', attachments });
    const reopened = await SessionLog.open(fixture.session.log.file, { readOnly: true });
    expect(reopened.log.path()[0]).toMatchObject({ attachments });
    await reopened.log.close();

    // Counted: the entry costs what its message costs on the wire, and the whole prompt counts what was sent.
    const { counter, cache } = fixture.session;
    expect(countEntry(user, counter, cache)).toBe(counter.countMessage(sent!));
    expect(countEntry(user, counter, cache)).toBeGreaterThan(counter.countMessage({ role: 'user', content: user.text }) + 20);
    const deps: CountingDeps = { counter, cache, settings: defaultSettings(), contextWindow: 128_000, systemPrompt: 'system', systemRole: 'system', tools: registry.definitions() };
    const measured = measureContext([user], deps);
    const request = model.requests[0]!;
    expect(measured.countedPrompt).toBe(counter.countMessages(request.messages) + counter.countTools(request.tools ?? []));
  });

  it('large-attachment-keeps-head-and-tail-and-says-which-lines-to-read', () => {
    const thresholds = thresholdsFor(32_000, defaultSettings());
    const selection: AttachmentSource = { name: 'src/big.ts', text: numbered(3000, 101), readable: true, lines: { start: 101, end: 3100 } };
    const { attachments, shortened } = prepareAttachments([selection], thresholds);
    const text = attachments[0]!.text;
    expect(shortened).toEqual(['src/big.ts, lines 101-3100']);
    expect(text.length).toBeLessThanOrEqual(thresholds.toolOutputChars);
    expect(text.startsWith('line 101 of the file\n')).toBe(true);
    expect(text.endsWith('line 3100 of the file')).toBe(true);
    const note = /omitted \(lines (\d+)-(\d+)\); read them with read_file (\{.*\}) \.\.\.\]/.exec(text);
    expect(note).not.toBeNull();
    const [first, last] = [Number(note![1]), Number(note![2])];
    // The note's numbers are the file's lines: the last line kept before it is the one just above `first`.
    expect(text).toContain(`line ${first - 1} of the file\n[...`);
    expect(text).toContain(`...]\nline ${last + 1} of the file`);
    expect(JSON.parse(note![3]!)).toEqual({ path: 'src/big.ts', startLine: first, endLine: last });
  });

  it('attachments-outside-the-workspace-are-capped-without-a-read-file-hint', () => {
    const { attachments } = prepareAttachments([{ name: '/tmp/notes.txt', text: numbered(5000), readable: false }], thresholdsFor(32_000, defaultSettings()));
    expect(attachments[0]!.text).toMatch(/\[\.\.\. \d+ lines \/ \d+ chars omitted \(lines \d+-\d+\) \.\.\.\]/);
    expect(attachments[0]!.text).not.toContain('read_file');
  });

  it('many-attachments-share-twice-one-tool-output-cap', () => {
    const thresholds = thresholdsFor(200_000, defaultSettings());
    expect(attachmentLimits(thresholds, 1).maxChars).toBe(thresholds.toolOutputChars);
    expect(attachmentLimits(thresholds, 2).maxChars).toBe(thresholds.toolOutputChars);
    expect(attachmentLimits(thresholds, 4).maxChars).toBe(thresholds.toolOutputChars / 2);
    expect(attachmentLimits(thresholds, 1000).maxChars).toBe(1000);
    const sources = Array.from({ length: 4 }, (_, i): AttachmentSource => ({ name: `f${i}.txt`, text: 'x'.repeat(30_000), readable: true }));
    const total = prepareAttachments(sources, thresholds).attachments.reduce((sum, attachment) => sum + attachment.text.length, 0);
    expect(total).toBeLessThanOrEqual(2 * thresholds.toolOutputChars);
  });

  it('summaries-and-read-transcript-see-the-attachments', () => {
    const entry: UserEntry = {
      type: 'user',
      id: 'u1',
      parentId: null,
      timestamp: '2025-01-01T00:00:00Z',
      text: 'Why does this fail?',
      attachments: [{ label: 'src/a.ts, lines 3-4', text: `const a = 1;\n${'x'.repeat(5000)}` }],
    };
    const block = entryBlock(entry);
    expect(block).toContain('[user]\nWhy does this fail?');
    expect(block).toContain('[user attached src/a.ts, lines 3-4]\nconst a = 1;');
    expect(block.length).toBeLessThan(3000);
    expect(renderTranscript([entry])).toContain(userContent(entry));
  });

  it('a-malformed-attachment-fails-validation-and-a-missing-one-is-fine', () => {
    const base = { type: 'user', id: 'u', parentId: null, timestamp: 't', text: 'hi' };
    expect(validateEntry(base)).toHaveProperty('entry');
    expect(validateEntry({ ...base, attachments: [{ label: 'a', text: 'b' }] })).toHaveProperty('entry');
    expect(validateEntry({ ...base, attachments: [{ label: 'a' }] })).toEqual({ error: 'user entry has an invalid "attachments"' });
    expect(validateEntry({ ...base, attachments: 'a.ts' })).toEqual({ error: 'user entry has an invalid "attachments"' });
  });

  it('a-label-cannot-close-the-attachment-tag', () => {
    expect(userContent({ text: '', attachments: [{ label: 'a"b\nc', text: 't' }] })).toBe(`<attachment label="a'b c">\nt\n</attachment>`);
  });
});
