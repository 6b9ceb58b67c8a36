// A summary request is built, measured and shrunk in one step: each case here needs one part of that step (the
// transcript left to the next request, the pasted request cut to its share, the room a correction retry needs).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { requestRoom } from '../../src/core/budget/meter';
import { summarize, type Complete } from '../../src/core/compaction/summarizer';
import { REQUIRED_HEADINGS } from '../../src/core/compaction/summaryPrompt';
import type { ChatMessage } from '../../src/core/context/chatMessage';
import type { MessageEntry, UserEntry } from '../../src/core/session/entries';
import { tempSession, type TempSession } from '../support/agentFakes';

let session: TempSession;
beforeEach(async () => {
  session = await tempSession();
});
afterEach(async () => {
  await session.cleanup();
});

/** An 8k local model writes the summaries (a quarter of its window for the summary: 2,048 tokens). */
const WINDOW = 8_192;

interface Sent {
  messages: ChatMessage[];
  maxTokens: number;
}

const text = (message: ChatMessage | undefined): string => (typeof message?.content === 'string' ? message.content : '');
const between = (body: string, open: string, close: string): string => body.slice(body.indexOf(open) + open.length, body.indexOf(close));
const transcriptOf = (sent: Sent): string => between(text(sent.messages[1]), '<conversation>\n', '\n</conversation>');

const valid = (marker: string): string => REQUIRED_HEADINGS.map((heading) => `${heading}\n${heading === '## Next steps' ? '- go on' : `The routers were read (${marker}). `.repeat(4)}`).join('\n\n');

/** `steps` read steps after one request, each output with its own marker, as the summary's entries. */
async function readSteps(steps: number, lines: number): Promise<MessageEntry[]> {
  await session.log.append({ type: 'user', text: 'Read every router and list its handlers.' });
  for (let step = 0; step < steps; step++) {
    const id = `call_${step}`;
    await session.log.append({ type: 'assistant', text: '', toolCalls: [{ id, name: 'read_file', arguments: JSON.stringify({ path: `src/router${step}.ts` }) }] });
    await session.log.append({ type: 'toolResult', toolCallId: id, toolName: 'read_file', isError: false, content: [`MARK-${step}-START`, ...Array.from({ length: lines }, (_, i) => `router${step}.ts:${i}: get('/r${step}/${i}', handler${i});`)].join('\n') });
  }
  return session.log.path().filter((entry): entry is MessageEntry => entry.type !== 'compaction' && 'type' in entry && ['user', 'assistant', 'toolResult'].includes(entry.type));
}

async function run(entries: MessageEntry[], answer: (index: number) => string, lastRequest: UserEntry | null = null): Promise<Sent[]> {
  const sent: Sent[] = [];
  const complete: Complete = (messages, options) => {
    sent.push({ messages: structuredClone(messages), maxTokens: options.maxTokens });
    return Promise.resolve(answer(sent.length - 1));
  };
  const path = session.log.path();
  const carried = lastRequest !== null;
  await summarize({ path, cut: { firstKeptEntryId: path.at(-1)?.id ?? null, splitsTurn: carried, carriedRequestId: lastRequest?.id ?? null }, entries, turnPrefixEntries: [], pinned: [], lastRequest, previous: null, complete, counter: session.counter, summaryWindow: WINDOW });
  // Every request fits the window, counted by the tokenizer itself with the reply it asks for.
  for (const request of sent) expect(session.counter.countMessages(request.messages) + request.maxTokens).toBeLessThanOrEqual(WINDOW);
  return sent;
}

describe('summary-request-each-guard-needed', () => {
  it('several parts: what does not fit is left to the next request, which carries the running summary', async () => {
    const entries = await readSteps(60, 12);
    const sent = await run(entries, (index) => valid(`part ${index + 1}`));
    expect(sent.length).toBeGreaterThan(2);
    // Every output reached the summarizer whole, once, in order.
    const transcripts = sent.map(transcriptOf);
    for (let step = 0; step < 60; step++) expect(transcripts.filter((part) => part.includes(`MARK-${step}-START`)), `MARK-${step}`).toHaveLength(1);
    expect(transcripts.join('\n')).not.toContain('chars omitted');
    // Each part after the first carries the summary so far; each but the last is filled to at least half the room.
    for (const [index, request] of sent.entries()) if (index > 0) expect(text(request.messages[1])).toContain(`part ${index}`);
    const room = requestRoom(session.counter, WINDOW, sent[0]!.maxTokens);
    for (const request of sent.slice(0, -1)) expect(session.counter.countText(transcriptOf(request))).toBeGreaterThan(room / 4);
  });

  it('a pasted request larger than its share: its middle goes, and the conversation keeps the room it needs', async () => {
    const entries = await readSteps(20, 12);
    const paste = ['PASTE-HEAD: CI fails after the rename, log below.', ...Array.from({ length: 260 }, (_, i) => `[ci] step ${i}: FAIL src/router.test.ts > handler ${i} returned 500 at route.ts:${i + 10}`), 'PASTE-TAIL: please find the root cause.'].join('\n');
    const request = (await session.log.append({ type: 'user', text: paste })) as UserEntry;
    const room = requestRoom(session.counter, WINDOW, 2_048);
    expect(session.counter.countText(paste)).toBeGreaterThan(room / 2);
    const sent = await run(entries, (index) => valid(`part ${index + 1}`), request);
    for (const part of sent) {
      const asked = between(text(part.messages[1]), '<request>\n', '\n</request>');
      expect(asked).toContain('PASTE-HEAD');
      expect(asked).toContain('PASTE-TAIL');
      expect(session.counter.countText(asked)).toBeLessThanOrEqual(room / 4);
    }
    for (const part of sent.slice(0, -1)) expect(session.counter.countText(transcriptOf(part))).toBeGreaterThan(room / 4);
  });

  it('a correction retry that would not fit: its room is kept free, so it resends what the first request sent', async () => {
    const entries = await readSteps(30, 12);
    // The first answer of each part is as long as the summary may be but fails validation (no sections); the retry's passes.
    const long = 'The agent read the routers one by one. '.repeat(180);
    expect(session.counter.countText(long)).toBeGreaterThan(1_400);
    const sent = await run(entries, (index) => (index % 2 === 0 ? long : valid(`part ${index}`)));
    expect(sent.length).toBeGreaterThanOrEqual(4);
    for (let index = 0; index + 1 < sent.length; index += 2) {
      const [first, retry] = [sent[index]!, sent[index + 1]!];
      expect(retry.messages.slice(0, first.messages.length)).toEqual(first.messages);
      expect(retry.messages.at(-2)).toEqual({ role: 'assistant', content: long.trim() });
      expect(text(retry.messages.at(-1))).toContain('Your summary has these problems');
    }
  });
});
