// The reply asked for and the reports believed on the long tail of servers (text-generation-webui, Groq, SGLang, KoboldCpp), against loopback servers with their shapes (sources cited per shape).
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/agent/agentEvents';
import { runAgent, type WindowEvidence } from '../../src/core/agent/agentLoop';
import { Calibration, judgeReport } from '../../src/core/budget/calibration';
import { SMALL_SERVER_WINDOW } from '../../src/core/budget/meter';
import type { StreamEvent } from '../../src/core/llm/modelStream';
import { OpenAiChatClient } from '../../src/core/llm/openaiChatClient';
import { outputLimitFromError } from '../../src/core/llm/overflowPatterns';
import { raiseWindowHint, serverTruncates } from '../../src/core/llm/windowDiscovery';
import { collect } from '../support/agentFakes';
import { baseAgentOptions, useAgentFixture } from '../support/agentFixture';
import { startShapeServer, streamedReply, type ShapeServer } from '../support/shapeServer';

let server: ShapeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const fixture = useAgentFixture();

function client(model: string): OpenAiChatClient {
  if (!server) throw new Error('no server');
  return new OpenAiChatClient({ baseUrl: server.baseUrl, apiKey: '', model, timeoutMs: 10_000, maxRetries: 0 });
}

interface ChatBody {
  max_tokens?: number;
  messages: Array<{ content?: unknown }>;
}

/** The prompt's size as the fake server counts it: our tokenizer over the messages as sent. */
function promptOf(body: ChatBody): number {
  return fixture.session.counter.countText(JSON.stringify(body.messages));
}

/**
 * text-generation-webui's OpenAI API (oobabooga/text-generation-webui, commit 1dcde41d03d13fc768316f4d2256a8a6dd044268):
 * max_tokens becomes max_new_tokens (modules/api/completions.py process_parameters); the prompt may take the truncation
 * length (8,192 by default, modules/shared.py) less max_new_tokens (modules/text_generation.py get_max_prompt_length);
 * the oldest messages are dropped to fit (modules/chat.py generate_chat_prompt), and when nothing fits it raises
 * ValueError, a bare 500. The usage chunk reports the prompt it kept (completions.py, `last_prompt_token_count`).
 */
function textGenerationWebui(asked: number[], truncationLength = 8192, prompts: number[] = []): (body: unknown) => unknown {
  return (body) => {
    const chat = body as ChatBody;
    const maxNew = chat.max_tokens ?? 512;
    asked.push(maxNew);
    prompts.push(promptOf(chat));
    const budget = truncationLength - maxNew;
    if (budget <= 0) return { status: 500, text: 'Internal Server Error', contentType: 'text/plain' };
    return streamedReply('Hello from text-generation-webui.', 'Qwen3-8B-Q4_K_M.gguf', { prompt_tokens: Math.min(promptOf(chat), budget), completion_tokens: 6 });
  };
}

function windowsAfterReplies(events: readonly AgentEvent[]): number[] {
  return events.flatMap((event) => (event.type === 'usage' ? [event.budget.contextWindow] : []));
}

describe('the reply asked for while the window is unknown', () => {
  it('unknown-window-output-request-fits-a-small-server', async () => {
    const asked: number[] = [];
    const prompts: number[] = [];
    server = await startShapeServer({ 'POST /v1/chat/completions': textGenerationWebui(asked, 8192, prompts) });
    // No window published (text-generation-webui has none): the 128k assumption, unknown.
    const events = await collect(runAgent({ ...baseAgentOptions(fixture, client('Qwen3-8B-Q4_K_M.gguf')), windowKnown: false }));
    // Before: the reply asked for the 128k window's reserve (10,496 tokens), and the server failed with a 500.
    expect(events.some((event) => event.type === 'error')).toBe(false);
    expect(asked).toHaveLength(1);
    expect((asked[0] ?? 0) + (prompts[0] ?? 0)).toBeLessThanOrEqual(SMALL_SERVER_WINDOW);
    expect(asked[0]).toBeGreaterThanOrEqual(1024);
    // A longer prompt still leaves an 8k server's reply reserve, never more than fits beside it.
    await collect(runAgent({ ...baseAgentOptions(fixture, client('m')), windowKnown: false, userText: 'word '.repeat(6000) }));
    expect(asked[1]).toBe(1024);
  });

  it('unknown-window-output-request-is-raised-once-the-window-is-known', async () => {
    const asked: number[] = [];
    server = await startShapeServer({ 'POST /v1/chat/completions': textGenerationWebui(asked, 131_072) });
    await collect(runAgent({ ...baseAgentOptions(fixture, client('m')), windowKnown: false }));
    await collect(runAgent({ ...baseAgentOptions(fixture, client('m')), contextWindow: 131_072, windowKnown: true, userText: 'again' }));
    expect(asked[0]).toBeLessThan(SMALL_SERVER_WINDOW);
    expect(asked[1]).toBe(16_384);
  });

  it('textgen-truncation-teaches-the-window: it drops the oldest messages and reports what it kept', async () => {
    const { log } = fixture.session;
    const filler = (turn: number): string => Array.from({ length: 520 }, (_, index) => `note${turn}x${index % 50}`).join(' ');
    for (let turn = 0; turn < 4; turn++) {
      await log.append({ type: 'user', text: filler(turn) });
      await log.append({ type: 'assistant', text: `Noted part ${turn}.`, toolCalls: [], model: 'gpt-4o', stopReason: 'stop' });
    }
    const asked: number[] = [];
    server = await startShapeServer({ 'POST /v1/chat/completions': textGenerationWebui(asked) });
    const learned: Array<[number, WindowEvidence]> = [];
    const events = await collect(
      runAgent({
        ...baseAgentOptions(fixture, client('m')),
        calibration: new Calibration('m'),
        windowKnown: false,
        serverTruncates: serverTruncates('textgen'),
        raiseWindowHint: raiseWindowHint('textgen'),
        onContextWindowLearned: (tokens, how) => learned.push([tokens, how]),
        userText: 'What did the first note say?',
      }),
    );
    const kept = 8192 - (asked[0] ?? 0);
    expect(learned).toEqual([[kept, 'truncation']]);
    expect(windowsAfterReplies(events)).toEqual([kept]);
    const notice = events.find((event): event is Extract<AgentEvent, { type: 'notice' }> => event.type === 'notice');
    expect(notice?.message).toMatch(/Truncate the prompt up to this length/);
  });
});

describe('a refusal of the reply\'s size', () => {
  /**
   * Groq's refusal of a max_tokens above a model's output limit, as users meet it: anomalyco/opencode issue 1000
   * ("AI_APICallError: `max_tokens` must be less than or equal to `16384`") and skapadia3214/groq-moa issue 8 (the body:
   * {"error": {"message": ..., "type": "invalid_request_error", "param": "max_tokens"}}).
   */
  const GROQ_REFUSAL = { error: { message: '`max_tokens` must be less than or equal to `8192`, the maximum value for `max_tokens` is less than the `context_window` for this model', type: 'invalid_request_error', param: 'max_tokens' } };

  it('max-tokens-refusal-retried-at-the-limit-it-names: once, and every later call asks for no more', async () => {
    const asked: number[] = [];
    server = await startShapeServer({
      'POST /v1/chat/completions': (body: unknown) => {
        const maxTokens = (body as ChatBody).max_tokens ?? 0;
        asked.push(maxTokens);
        return maxTokens > 8192 ? { status: 400, text: JSON.stringify(GROQ_REFUSAL) } : streamedReply('Hi.', 'llama-3.1-8b-instant');
      },
    });
    const groq = client('llama-3.1-8b-instant');
    const events: StreamEvent[] = [];
    for await (const event of groq.stream({ messages: [{ role: 'user', content: 'hi' }], maxOutputTokens: 16_384 }, new AbortController().signal)) events.push(event);
    expect(events.map((event) => event.type)).toEqual(['retry', 'textDelta', 'done']);
    for await (const event of groq.stream({ messages: [{ role: 'user', content: 'again' }], maxOutputTokens: 16_384 }, new AbortController().signal)) events.push(event);
    expect(asked).toEqual([16_384, 8192, 8192]);
  });

  it.each<[string, string, number | undefined]>([
    ['groq', GROQ_REFUSAL.error.message, 8192],
    // huggingface/text-generation-inference router/src/validation.rs ValidationError::MaxNewTokens.
    ['tgi', 'Input validation error: `max_new_tokens` must be <= 4096. Given: 10000', 4096],
    // OpenAI's refusal of a max_tokens above the model's output limit (the same text test/unit/llmOverflow.test.ts keeps a bad request).
    ['openai', 'max_tokens is too large: 100000. This model supports at most 16384 completion tokens, whereas you provided 100000.', 16384],
    // DeepSeek's API, deepseek-ai/DeepSeek-V3 issue 69: {"error": {"message": "Invalid max_tokens value, the valid range of max_tokens is [1, 8192]", ...}}.
    ['deepseek', 'Invalid max_tokens value, the valid range of max_tokens is [1, 8192]', 8192],
    // An overflow of the prompt is not one, nor a limit that is not the reply's.
    ['vllm-overflow', "'max_tokens' or 'max_completion_tokens' is too large: 10000. This model's maximum context length is 8192 tokens and your request has 500 input tokens (10000 > 8192 - 500).", undefined],
    ['rate-limit', 'Rate limit reached: must be less than or equal to 6000 tokens per min', undefined],
    ['garbage', '`max_tokens` must be less than or equal to `3`', undefined],
  ])('%s: the output limit it names', (_server, text, limit) => {
    expect(outputLimitFromError(text)).toBe(limit);
  });
});

describe('a report that proves the prompt was cut', () => {
  it('small-silent-truncation-at-known-window-detected', async () => {
    /**
     * SGLang started with --allow-auto-truncate (sgl-project/sglang python/sglang/srt/managers/tokenizer_manager.py
     * _validate_one_request, commit 001067fffe33427bee0ed2f007fb7551a1d76b44: "Truncating the input." instead of the
     * 400) answers 200, its usage the prompt it kept: 8,191 tokens of about 9,000 sent to its 8,192 window.
     */
    server = await startShapeServer({ 'POST /v1/chat/completions': streamedReply('An answer.', 'Qwen/Qwen3-8B', { prompt_tokens: 8191, completion_tokens: 1 }) });
    let reported: number | undefined;
    for await (const event of client('Qwen/Qwen3-8B').stream({ messages: [{ role: 'user', content: 'x' }] }, new AbortController().signal)) if (event.type === 'done') reported = event.usage?.promptTokens;
    expect(reported).toBe(8191);
    // A cut under a fifth passed before: 8,191 of 9,000 is within the tokenizer tolerance, but it fills the window.
    expect(judgeReport(reported ?? 0, 9000, 8192)).toMatchObject({ believed: false, truncated: { kept: 8191 } });
    const calibration = new Calibration('Qwen/Qwen3-8B');
    expect(calibration.observe({ reported: reported ?? 0, content: 8600, tools: 400 }, 8192)).toMatchObject({ truncated: { kept: 8191 } });
    expect(calibration.toJSON().observations).toEqual([]);
    // A prompt that fills the window while we count less is not believed either (no room for a reply), but teaches nothing.
    expect(judgeReport(8191, 7000, 8192)).toMatchObject({ believed: false });
    expect(judgeReport(8191, 7000, 8192)).not.toHaveProperty('truncated');
    // An honest report below the window is a calibration sample as before.
    expect(judgeReport(7900, 7600, 8192)).toEqual({ believed: true });
  });

  it('koboldcpp-fixed-usage-is-no-truncation: a report below any window teaches no window', () => {
    // LostRuins/koboldcpp koboldcpp.py line 1458 (commit 2da346a5): non-streamed chat answers report a fixed
    // {"prompt_tokens": 100, "completion_tokens": 100}; KoboldCpp cuts the front of a long prompt (gpttype_adapter.cpp).
    expect(serverTruncates('koboldcpp')).toBe(true);
    const verdict = judgeReport(100, 9000, 12288, { truncates: true });
    expect(verdict).toMatchObject({ believed: false });
    expect(verdict).not.toHaveProperty('truncated');
  });
});
