// Budget-driven behaviour of the loop: prune then compact in a small window, capped outputs read back, review modes.
import { describe, expect, it } from 'vitest';
import type { AgentOptions } from '../../src/core/agent/agentLoop';
import { runAgent } from '../../src/core/agent/agentLoop';
import { SUMMARY_PREFIX } from '../../src/core/context/contextBuilder';
import { defaultSettings, type Settings } from '../../src/core/settings/settings';
import type { ChatRequest } from '../../src/core/llm/modelStream';
import { collect, orphanProblems, recordingSummarizer, scriptedModel, wireOrphans, type ScriptStep } from '../support/agentFakes';
import { baseAgentOptions, useAgentFixture } from '../support/agentFixture';

const fixture = useAgentFixture();

function smallSettings(): Settings {
  const settings = defaultSettings();
  settings.context.maxOutputTokens = 256;
  settings.compaction.reserveTokens = 1024;
  settings.compaction.keepRecentTokens = 3000;
  settings.pruning = { enabled: true, protectTokens: 1000, minimumTokens: 500, protectTurns: 0, protectedTools: [] };
  settings.tools.outputMaxChars = 6000;
  return settings;
}

function agentWith(script: readonly ScriptStep[], extra: Partial<AgentOptions> = {}): AgentOptions {
  return {
    ...baseAgentOptions(fixture, scriptedModel(script)),
    settings: smallSettings(),
    contextWindow: 12_000,
    userText: 'Survey the data files',
    ...extra,
  };
}

function fileText(index: number): string {
  return Array.from({ length: 60 }, (_, line) => `file ${index} line ${line}: measurement ${line * index} units`).join('\n');
}

const thinking = (index: number): string => `Step ${index}: ${'considering the next file carefully. '.repeat(90)}`;

describe('budget in the loop', () => {
  it('a small window prunes first, then compacts; the next request starts with the summary, keeps placeholders and has no orphans', async () => {
    for (let i = 0; i < 20; i++) fixture.ws.write(`data/f${i}.txt`, fileText(i));
    const script: ScriptStep[] = Array.from({ length: 20 }, (_, i) => ({ text: thinking(i), toolCalls: [{ name: 'read_file', args: { path: `data/f${i}.txt` } }] }));
    script.push({ text: 'All files surveyed.' });
    const agent = agentWith(script);
    const events = await collect(runAgent(agent));
    const model = agent.model as ReturnType<typeof scriptedModel>;
    const types = events.map((event) => event.type);
    const firstPrune = types.indexOf('prune');
    const firstCompaction = types.indexOf('compaction');
    expect(firstPrune).toBeGreaterThan(-1);
    expect(firstCompaction).toBeGreaterThan(firstPrune);
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'finished' });
    const compactionStep = events.slice(0, firstCompaction).filter((event) => event.type === 'message').length;
    const next = model.requests[compactionStep] as ChatRequest;
    expect(next.messages[0]?.role).toBe('system');
    expect(next.messages[1]).toMatchObject({ role: 'user' });
    expect(String(next.messages[1]?.content)).toContain(SUMMARY_PREFIX);
    const everyRequest = model.requests;
    for (const request of everyRequest) expect(wireOrphans(request)).toEqual([]);
    const placeholders = everyRequest.flatMap((request) => request.messages).filter((m) => m.role === 'tool' && m.content.includes('read_stored_output'));
    expect(placeholders.length).toBeGreaterThan(0);
    expect(next.messages.some((m) => m.role === 'tool' && m.content.includes('read_stored_output'))).toBe(true);
    for (const request of everyRequest) {
      const tokens = fixture.session.counter.countMessages(request.messages) + fixture.session.counter.countTools(request.tools ?? []);
      expect(tokens).toBeLessThanOrEqual(12_000 - 1024);
    }
    expect(orphanProblems(fixture.session.log.path())).toEqual([]);
  });

  it('caps a long output to head and tail and the model reads the middle back with read_stored_output', async () => {
    const readBack: ScriptStep = (request) => {
      const last = request.messages.at(-1);
      const note = last?.role === 'tool' ? /read_stored_output (\{[^}]*\})/.exec(last.content) : null;
      if (!note?.[1]) throw new Error('no read-back note in the capped output');
      return { toolCalls: [{ name: 'read_stored_output', rawArguments: note[1] }] };
    };
    const agent = agentWith([{ toolCalls: [{ name: 'run_command', args: { command: 'seq 1 3000' } }] }, readBack, { text: 'ok' }]);
    await collect(runAgent(agent));
    const results = fixture.session.log.path().filter((entry) => entry.type === 'toolResult');
    const capped = results[0]!;
    expect(capped.blob).toBeDefined();
    expect(capped.content.length).toBeLessThanOrEqual(6000);
    expect(capped.content.startsWith('1\n2\n3\n')).toBe(true);
    expect(capped.content.trimEnd().endsWith('2999\n3000')).toBe(true);
    expect(capped.content).toContain(`"entryId":"${capped.id}"`);
    const omitted = /"startLine":(\d+),"endLine":(\d+)/.exec(capped.content)!;
    const [start, end] = [Number(omitted[1]), Number(omitted[2])];
    expect(capped.content.split('\n')).not.toContain(String(start));
    const back = results[1]!;
    expect(back.isError).toBe(false);
    const lines = back.content.split('\n');
    expect(lines[0]).toBe(String(start));
    expect(lines).toContain(String(Math.min(end, start + 100)));
    expect(await fixture.session.log.blobs.read(capped.blob!)).toBe(Array.from({ length: 3000 }, (_, i) => String(i + 1)).join("\n"));
  });
});

async function seedLongHistory(): Promise<void> {
  for (let i = 0; i < 8; i++) {
    await fixture.session.log.append({ type: 'user', text: `question ${i} ${'lorem ipsum '.repeat(300)}` });
    await fixture.session.log.append({ type: 'assistant', text: `answer ${i} ${'dolor sit amet '.repeat(300)}`, toolCalls: [], stopReason: 'stop' });
  }
}

describe('compaction review modes', () => {
  it('"always": the reviewer sees the proposal and its edited summary is applied', async () => {
    await seedLongHistory();
    const settings = smallSettings();
    settings.compaction.review = 'always';
    const seen: string[] = [];
    const agent = agentWith([{ text: 'ok' }], {
      settings,
      contextWindow: 12_000,
      review: (proposal) => {
        seen.push(proposal.summary);
        expect(proposal.summarized.length).toBeGreaterThan(0);
        expect(proposal.tokensAfter).toBeLessThan(proposal.tokensBefore);
        return Promise.resolve({ action: 'apply', proposal, summary: 'EDITED SUMMARY', edited: true });
      },
    });
    const events = await collect(runAgent(agent));
    expect(seen).toHaveLength(1);
    expect(events.map((event) => event.type)).toContain('compactionReview');
    const compaction = fixture.session.log.path().find((entry) => entry.type === 'compaction');
    expect(compaction).toMatchObject({ summary: 'EDITED SUMMARY', edited: true, auto: true });
    const request = (agent.model as ReturnType<typeof scriptedModel>).requests[0]!;
    expect(String(request.messages[1]?.content)).toContain('EDITED SUMMARY');
  });

  it('"manual": a summary that failed validation is not applied without a reviewer (clear error); a cancel applies nothing', async () => {
    await seedLongHistory();
    const failing = recordingSummarizer({ needsReview: true });
    const agent = agentWith([{ text: 'ok' }], { contextWindow: 12_000, summarize: failing.summarize });
    const events = await collect(runAgent(agent));
    const error = events.find((event) => event.type === 'error');
    expect(error?.type === 'error' && error.message).toContain('failed validation (missing section "Next steps")');
    expect(fixture.session.log.path().some((entry) => entry.type === 'compaction')).toBe(false);
    const cancelling = agentWith([{ text: 'ok' }], {
      contextWindow: 12_000,
      summarize: failing.summarize,
      userText: 'again',
      review: () => Promise.resolve({ action: 'cancel' }),
    });
    const second = await collect(runAgent(cancelling));
    expect(second.map((event) => event.type)).toContain('compactionReview');
    expect(fixture.session.log.path().some((entry) => entry.type === 'compaction')).toBe(false);
  });
});
