// Scenarios of compactions that must carry everything forward and never send what the user did not agree to.
import { describe, expect, it } from 'vitest';
import type { AgentOptions } from '../../src/core/agent/agentLoop';
import { runAgent } from '../../src/core/agent/agentLoop';
import { modelSummarizer } from '../../src/core/compaction/summarizer';
import { REQUIRED_HEADINGS } from '../../src/core/compaction/summaryPrompt';
import type { ChatMessage } from '../../src/core/context/chatMessage';
import { buildContext } from '../../src/core/context/contextBuilder';
import type { ModelStream } from '../../src/core/llm/modelStream';
import type { CompactionEntry } from '../../src/core/session/entries';
import { defaultSettings } from '../../src/core/settings/settings';
import { collect, scriptedModel, type ScriptStep } from '../support/agentFakes';
import { baseAgentOptions, useAgentFixture } from '../support/agentFixture';

const fixture = useAgentFixture();

/** Enough reads of capped outputs that one turn overflows an 8k window twice. */
const FILES = 16;

const bigFile = (n: number): string => Array.from({ length: 120 }, (_, i) => `big${n} line ${i}: ${'measurement data that fills the window '.repeat(3)}`).join('\n');

/** A summarizing model that records what it was asked and answers with a valid summary. */
function summaryModel(prompts: ChatMessage[][]): ModelStream {
  return {
    async *stream(request) {
      await Promise.resolve();
      prompts.push(request.messages);
      const text = REQUIRED_HEADINGS.map((heading) => `${heading}\n${heading === '## Next steps' ? '- keep reading the files' : 'The agent is reading big files one after another for the user, as asked.'}`).join('\n\n');
      yield { type: 'done', text, toolCalls: [], invalidArguments: [], stopReason: 'stop' };
    },
  };
}

function agentOptions(script: readonly ScriptStep[], prompts: ChatMessage[][], extra: Partial<AgentOptions> = {}): AgentOptions {
  const base = baseAgentOptions(fixture, scriptedModel(script));
  return {
    ...base,
    contextWindow: 8_192,
    summarize: modelSummarizer({ model: summaryModel(prompts), counter: fixture.session.counter, summaryWindow: 8_192, path: () => fixture.session.log.path() }),
    ...extra,
  };
}

const readEach = (count: number): ScriptStep[] => [
  ...Array.from({ length: count }, (_, i): ScriptStep => ({ toolCalls: [{ name: 'read_file', args: { path: `big${i}.txt` } }] })),
  { text: 'All files read.' },
];

describe('compactions carry everything forward', () => {
  it('second-compaction-after-split-turn: the first request survives in the third context and reaches the summarizer', async () => {
    for (let i = 0; i < FILES; i++) fixture.ws.write(`big${i}.txt`, bigFile(i));
    const request = 'Read big0.txt to big15.txt one after another and tell me which has the largest measurement.';
    const prompts: ChatMessage[][] = [];
    const agent = agentOptions(readEach(FILES), prompts, { userText: request });
    const events = await collect(runAgent(agent));
    const compactions = fixture.session.log.path().filter((entry): entry is CompactionEntry => entry.type === 'compaction');
    expect(compactions.length).toBeGreaterThanOrEqual(2);
    expect(events.filter((event) => event.type === 'error')).toEqual([]);
    // Each compaction cut into the turn: its appendix names the request as carried, and the context sends it once.
    for (const compaction of compactions) {
      expect(compaction.carriedRequestId).toBe(fixture.session.log.path().find((entry) => entry.type === 'user')?.id);
      expect(compaction.summary).toContain('## Last user request\n(sent verbatim right after this summary');
    }
    const sent = buildContext(fixture.session.log.path()).messages.map((message) => (typeof message.content === 'string' ? message.content : '')).join('\n');
    expect(sent.split(request).length - 1).toBe(1);
    // The summarizer of every compaction was told the request.
    for (const prompt of prompts) expect(prompt.map((message) => message.content).join('\n')).toContain(request);
    // The split turn's summary of the first compaction is passed to the next one.
    const second = prompts.at(-1)!.map((message) => message.content).join('\n');
    if (compactions[0]!.turnPrefixSummary) expect(second).toContain('Earlier steps of the current turn');
  });

  it('request-survives-two-compactions-in-one-turn: every call of the turn carries the request verbatim', async () => {
    for (let i = 0; i < FILES; i++) fixture.ws.write(`big${i}.txt`, bigFile(i));
    const request = 'Read big0.txt to big15.txt one after another, then report the largest value.';
    const model = scriptedModel(readEach(FILES));
    const agent = agentOptions([], [], { model, userText: request });
    await collect(runAgent(agent));
    expect(fixture.session.log.path().filter((entry) => entry.type === 'compaction').length).toBeGreaterThanOrEqual(2);
    for (const sent of model.requests) {
      const users = sent.messages.filter((message) => message.role === 'user').map((message) => message.content);
      expect(users).toContain(request);
    }
    // The request is sent once per call, not once per compaction.
    const last = model.requests.at(-1)!;
    expect(last.messages.filter((message) => message.role === 'user' && message.content === request)).toHaveLength(1);
  });

  it('a model that keeps re-reading what the summaries replaced is stopped, not left to loop to the step limit', async () => {
    for (let i = 0; i < 4; i++) fixture.ws.write(`big${i}.txt`, bigFile(i));
    const rereading: ScriptStep[] = Array.from({ length: 60 }, (_, i): ScriptStep => ({ toolCalls: [{ name: 'read_file', args: { path: `big${i % 4}.txt` } }] }));
    const model = scriptedModel(rereading);
    const events = await collect(runAgent(agentOptions([], [], { model, userText: 'read the four files' })));
    const error = events.find((event) => event.type === 'error');
    expect(error?.type === 'error' && error.message).toMatch(/only repeated calls|compacted twice/);
    expect(model.requests.length).toBeLessThan(50);
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'error' });
  });

  it('cancel-review-sends-nothing: cancelling the review of a needed compaction stops the request with a clear message', async () => {
    for (let i = 0; i < FILES; i++) fixture.ws.write(`big${i}.txt`, bigFile(i));
    const settings = defaultSettings();
    settings.compaction.review = 'always';
    const prompts: ChatMessage[][] = [];
    const model = scriptedModel(readEach(FILES));
    const agent = agentOptions([], prompts, { model, settings, userText: 'read them all', review: () => Promise.resolve({ action: 'cancel' }) });
    const events = await collect(runAgent(agent));
    const sentBefore = model.requests.length;
    expect(events.map((event) => event.type)).toContain('compactionReview');
    const error = events.find((event) => event.type === 'error');
    expect(error?.type === 'error' && error.message).toMatch(/cancelled, so the request was stopped/);
    expect(fixture.session.log.path().some((entry) => entry.type === 'compaction')).toBe(false);
    // Every request that was sent fit the window: the over-budget prompt was never sent.
    for (const request of model.requests) expect(fixture.session.counter.countMessages(request.messages)).toBeLessThan(8_192);
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'error' });
    expect(model.requests.length).toBe(sentBefore);
  });

  it('a pin made in the panel while a summary waits for review is kept, and the summary still applies', async () => {
    for (let i = 0; i < FILES; i++) fixture.ws.write(`big${i}.txt`, bigFile(i));
    const settings = defaultSettings();
    settings.compaction.review = 'always';
    const prompts: ChatMessage[][] = [];
    const log = fixture.session.log;
    const agent = agentOptions(readEach(FILES), prompts, {
      settings,
      userText: 'read them all',
      review: async (proposal) => {
        const first = proposal.summarized.find((entry) => entry.type === 'toolResult');
        if (first) await log.append({ type: 'pin', targetId: first.id, pinned: true });
        return { action: 'apply', proposal, summary: proposal.summary, edited: false };
      },
    });
    const events = await collect(runAgent(agent));
    expect(events.filter((event) => event.type === 'error')).toEqual([]);
    expect(log.path().some((entry) => entry.type === 'compaction')).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'finished' });
  });

  it('summary-of-a-summary-keeps-every-request: earlier requests are listed in every later appendix', async () => {
    for (let i = 0; i < 2 * FILES; i++) fixture.ws.write(`big${i}.txt`, bigFile(i));
    const first = 'Read big0.txt to big15.txt and note the largest measurement.';
    const second = 'Now read big16.txt to big31.txt the same way.';
    await collect(runAgent(agentOptions(readEach(FILES), [], { userText: first })));
    const later = Array.from({ length: FILES }, (_, i): ScriptStep => ({ toolCalls: [{ name: 'read_file', args: { path: `big${FILES + i}.txt` } }] }));
    await collect(runAgent(agentOptions([...later, { text: 'Done.' }], [], { userText: second })));
    const compactions = fixture.session.log.path().filter((entry): entry is CompactionEntry => entry.type === 'compaction');
    const last = compactions.at(-1)!;
    // The request of the turn the last compaction cut into is carried verbatim after it (named in the appendix, sent once).
    const sent = buildContext(fixture.session.log.path()).messages.map((message) => (typeof message.content === 'string' ? message.content : '')).join('\n');
    expect(sent.split(second).length - 1).toBe(1);
    if (last.carriedRequestId === null) expect(last.summary).toContain(second);
    expect(last.summary).toContain(`## Earlier user requests\n1. ${first}`);
  });
});
