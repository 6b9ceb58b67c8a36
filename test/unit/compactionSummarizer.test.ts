// Summarizer with a scripted model: sections validated, corrective retry, needsReview, chunking, instructions, appendix.
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/core/context/chatMessage';
import { APPENDIX_HEADING, extendFileLedger } from '../../src/core/compaction/summaryAppendix';
import { fitTokens, headTail } from '../../src/core/compaction/summaryTranscript';
import { validateSummary } from '../../src/core/compaction/summaryValidation';
import { summarize, type Complete } from '../../src/core/compaction/summarizer';
import { TokenCounter } from '../../src/core/tokens/tokenCounter';
import { PathBuilder } from '../support/sessionPathBuilder';
import { summaryInput } from '../support/summaryInputs';

const GOOD = `## Goal
Port the selector to the new theme API.
## Constraints and preferences
- Keep the public API stable.
## Progress
### Done
- Read theme.ts and the oauth selector.
### In progress
- Rewriting user-message-selector.ts.
### Blocked
(none)
## Key decisions
- Reuse SelectList from the TUI package.
## Next steps
- Finish user-message-selector.ts and run the tests.
## Critical context
- Theme tokens live in theme.ts.`;

function scripted(replies: string[]): { complete: Complete; calls: Array<{ messages: ChatMessage[]; maxTokens: number }> } {
  const calls: Array<{ messages: ChatMessage[]; maxTokens: number }> = [];
  const complete: Complete = (messages, options) => {
    calls.push({ messages, maxTokens: options.maxTokens });
    return Promise.resolve(replies[Math.min(calls.length - 1, replies.length - 1)] ?? '');
  };
  return { complete, calls };
}

function session(): PathBuilder {
  const b = new PathBuilder();
  b.user('u0', 'Port user-message-selector.ts to the theme API.');
  b.assistant('a0', ['c0', 'c1']);
  b.tool('t0', 'c0', 'x'.repeat(10_000));
  b.tool('t1', 'c1', 'short');
  b.assistant('a1', [], 'Now editing.', { toolCalls: [{ id: 'c2', name: 'edit_file', arguments: '{"path":"src/sel.ts","old":"a","new":"b"}' }] });
  b.tool('t2', 'c2', 'ok');
  b.pin('p0', 'u0');
  b.user('u1', 'Also keep it accessible.');
  b.assistant('a2');
  return b;
}

const plan = { summarize: ['u0', 'a0', 't0', 't1', 'a1', 't2'], firstKept: 'u1' };

describe('summarize', () => {
  it('accepts a valid summary and appends the deterministic appendix', async () => {
    const counter = await TokenCounter.create('gpt-4o');
    const { complete, calls } = scripted([GOOD]);
    const result = await summarize({ path: session().path(), ...summaryInput(session().path(), plan), previous: null, complete, counter, summaryWindow: 128_000, instructions: 'Focus on the TODOs' });
    expect(calls).toHaveLength(1);
    expect(result.needsReview).toBe(false);
    expect(result.problems).toEqual([]);
    expect(result.files).toEqual({ read: ['c0.ts', 'c1.ts'], modified: ['src/sel.ts'] });
    expect(result.summary.startsWith(GOOD)).toBe(true);
    expect(result.summary).toContain(`${APPENDIX_HEADING}\n### Read\n- c0.ts\n- c1.ts\n### Modified\n- src/sel.ts`);
    expect(result.summary).toContain('## Last user request\nPort user-message-selector.ts to the theme API.');
    // Pinned messages are re-sent verbatim by the context builder: the appendix only references them.
    expect(result.summary).toContain('## Pinned messages\n- kept verbatim after this summary: [user] Port user-message-selector.ts to the theme API.');
    expect(result.summary).not.toContain('## Pinned messages\n[user]');
    const prompt = calls[0]!.messages.map((message) => message.content).join('\n');
    expect(prompt).toContain('Focus on the TODOs');
    expect(prompt).toContain('chars omitted');
    expect(prompt).not.toContain('x'.repeat(3000));
  });

  it('retries once with the problems, then accepts the corrected summary', async () => {
    const counter = await TokenCounter.create('gpt-4o');
    const { complete, calls } = scripted([GOOD.replace(/## Next steps\n.*\n/, '## Next steps\n(none)\n'), GOOD]);
    const result = await summarize({ path: session().path(), ...summaryInput(session().path(), plan), previous: null, complete, counter, summaryWindow: 128_000 });
    expect(calls).toHaveLength(2);
    const correction = calls[1]!.messages.at(-1)!.content!;
    expect(correction).toContain('Next steps');
    expect(calls[1]!.messages.at(-2)?.role).toBe('assistant');
    expect(result.needsReview).toBe(false);
  });

  it('hands the summary to a person after the second failure', async () => {
    const counter = await TokenCounter.create('gpt-4o');
    const { complete, calls } = scripted(['I did some things.']);
    const result = await summarize({ path: session().path(), ...summaryInput(session().path(), plan), previous: null, complete, counter, summaryWindow: 128_000 });
    expect(calls).toHaveLength(2);
    expect(result.needsReview).toBe(true);
    expect(result.problems.join('\n')).toMatch(/missing section "## Goal"/);
    expect(result.summary).toContain(APPENDIX_HEADING);
  });

  it('summarizes in chunks with the running summary when the input exceeds the window', async () => {
    const counter = await TokenCounter.create('gpt-4o');
    const b = new PathBuilder();
    const ids: string[] = [];
    for (let turn = 0; turn < 12; turn++) {
      ids.push(b.user(`u${turn}`, `request ${turn} `.repeat(300)).id);
      ids.push(b.assistant(`a${turn}`, [], `answer ${turn} `.repeat(300)).id);
    }
    const { complete, calls } = scripted([GOOD]);
    const previous = b.compaction('c0', null, `${GOOD}\n\n${APPENDIX_HEADING}\n### Read\n- old.ts\n### Modified\n- (none)`, { files: { read: ['old.ts'], modified: [] } });
    const result = await summarize({
      path: b.path(),
      ...summaryInput(b.path(), { summarize: ids, firstKept: null }),
      previous,
      complete,
      counter,
      summaryWindow: 8000,
      maxSummaryTokens: 1000,
    });
    expect(calls.length).toBeGreaterThan(1);
    expect(calls[0]!.messages[1]!.content).toContain('<previous-summary>');
    expect(calls[0]!.messages[1]!.content).not.toContain('old.ts');
    expect(calls[1]!.messages[1]!.content).toContain(GOOD);
    expect(calls[1]!.messages[1]!.content).toContain('part 2');
    for (const call of calls) expect(counter.countMessages(call.messages)).toBeLessThanOrEqual(8000 - 1000);
    expect(result.files.read).toEqual(['old.ts']);
  });

  it('sends an output pruned from the context shorter than a live one, marked as pruned, in fewer chunks at a small window', async () => {
    const counter = await TokenCounter.create('gpt-4o');
    const build = (pruneOutputs: boolean): { path: ReturnType<PathBuilder['path']>; ids: string[] } => {
      const b = new PathBuilder();
      const ids: string[] = [];
      const results: string[] = [];
      for (let turn = 0; turn < 16; turn++) {
        ids.push(b.user(`u${turn}`, `step ${turn}`).id);
        ids.push(b.assistant(`a${turn}`, [`c${turn}`]).id);
        ids.push(b.tool(`t${turn}`, `c${turn}`, `HEAD${turn} ${'log line with words '.repeat(150)} TAIL${turn}`).id);
        results.push(`t${turn}`);
      }
      if (pruneOutputs) b.prune('p0', results.slice(0, 12));
      return { path: b.path(), ids };
    };
    const send = async (pruneOutputs: boolean): Promise<Array<{ messages: ChatMessage[]; maxTokens: number }>> => {
      const { path, ids } = build(pruneOutputs);
      const { complete, calls } = scripted([GOOD]);
      await summarize({ path, ...summaryInput(path, { summarize: ids, firstKept: null }), previous: null, complete, counter, summaryWindow: 8192, maxSummaryTokens: 1024 });
      return calls;
    };
    const live = await send(false);
    const pruned = await send(true);
    const livePrompt = live.map((call) => call.messages.map((message) => message.content).join('\n')).join('\n');
    const prunedPrompt = pruned.map((call) => call.messages.map((message) => message.content).join('\n')).join('\n');
    // Every output still names its head and tail; the pruned ones say so and take at most 600 characters.
    for (let turn = 0; turn < 16; turn++) expect(prunedPrompt).toContain(`HEAD${turn}`);
    for (let turn = 0; turn < 16; turn++) expect(prunedPrompt).toContain(`TAIL${turn}`);
    expect(prunedPrompt.match(/pruned from the context earlier/g)).toHaveLength(12);
    expect(livePrompt).not.toContain('pruned from the context earlier');
    const block = /\[read_file result, pruned from the context earlier\]\n([\s\S]*?TAIL0)/.exec(prunedPrompt);
    expect(block?.[1]?.length ?? 0).toBeLessThan(700);
    expect(pruned.length).toBeLessThan(live.length);
  });

  it('summarizes the prefix of a split turn separately', async () => {
    const counter = await TokenCounter.create('gpt-4o');
    const { complete, calls } = scripted([GOOD, '- The user asked to port the selector; theme.ts was read.']);
    const result = await summarize({
      path: session().path(),
      ...summaryInput(session().path(), { summarize: [], prefix: ['u0', 'a0', 't0', 't1'], firstKept: 'a1' }),
      previous: null,
      complete,
      counter,
      summaryWindow: 128_000,
    });
    expect(calls).toHaveLength(2);
    expect(result.turnPrefixSummary).toContain('port the selector');
    expect(calls[1]!.messages[1]!.content).toContain('<turn-start>');
  });
});

describe('summary helpers', () => {
  it('keeps head and tail of long outputs and builds a cumulative ledger', () => {
    const text = `${'a'.repeat(3000)}${'b'.repeat(3000)}`;
    const short = headTail(text);
    expect(short.startsWith('a'.repeat(1000))).toBe(true);
    expect(short.endsWith('b'.repeat(1000))).toBe(true);
    const b = new PathBuilder();
    const a = b.assistant('a', [], '', {
      toolCalls: [
        { id: '1', name: 'read_file', arguments: '{"path":"x.ts"}' },
        { id: '2', name: 'write_file', arguments: '{"path":"x.ts"}' },
        { id: '3', name: 'read_file', arguments: '{"path":' },
      ],
    });
    expect(extendFileLedger({ read: ['y.ts'], modified: ['z.ts'] }, [a])).toEqual({ read: ['y.ts'], modified: ['x.ts', 'z.ts'] });
  });

  it('fits a text to a limit of a few tokens and stops at head and tail of about 200 characters (the loop never ended there)', () => {
    // A request part cut to a limit of 1 token (the summary request's last resort at 8k, a Gemini CLI session that
    // pasted logs): head and tail of 200 characters with the omission note is over 200 and over the limit, and each
    // pass rebuilt the same string. The counter throws instead of letting a loop run on.
    let calls = 0;
    const count = (text: string): number => {
      calls += 1;
      if (calls > 100) throw new Error('fitTokens did not stop');
      return text.length;
    };
    for (const limit of [1, 10, 50]) {
      calls = 0;
      const fitted = fitTokens(`${'a'.repeat(20_000)}${'b'.repeat(20_000)}`, limit, count);
      expect(fitted.startsWith('a'.repeat(100))).toBe(true);
      expect(fitted.endsWith('b'.repeat(100))).toBe(true);
      expect(fitted.length).toBeLessThan(260);
    }
    expect(fitTokens('short', 1, count)).toBe('short');
    expect(fitTokens('x'.repeat(4000), 2000, (text) => Math.ceil(text.length / 4))).toHaveLength(4000);
  });

  it('reports a missing ledger and over-long summaries', () => {
    const limits = { maxTokens: 50, countTokens: (text: string) => Math.ceil(text.length / 4) };
    const problems = validateSummary(GOOD, limits);
    expect(problems.some((problem) => problem.includes('file ledger'))).toBe(true);
    expect(problems.some((problem) => problem.includes('tokens'))).toBe(true);
  });
});

describe('appendix boundary', () => {
  it('a model-written "## Files" section stays part of the summary; only the agent\'s appendix is stripped', async () => {
    const { stripAppendix, summaryAppendix } = await import('../../src/core/compaction/summaryAppendix');
    const modelPart = '## Goal\nShip it.\n\n## Files\n- notes the model wrote\n\n## Next steps\n- test';
    const full = `${modelPart}\n\n${summaryAppendix({ files: { read: ['a.ts'], modified: [] }, lastUserRequest: 'go', pinned: [] })}`;
    expect(stripAppendix(full)).toBe(modelPart);
  });
});
