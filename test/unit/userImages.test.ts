// Images in user messages: the tile cost, which models take them, the wire shape, and the session keeping no base64 inline.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runAgent } from '../../src/core/agent/agentLoop';
import { imageDimensions, imageTokens, modelTakesImages } from '../../src/core/context/userImages';
import { detectEndpointFlags } from '../../src/core/llm/endpointFlags';
import { buildRequestBody } from '../../src/core/llm/requestBody';
import type { UserImage } from '../../src/core/session/entries';
import { entryMessage } from '../../src/core/tokens/entryTokens';
import { collect, scriptedModel } from '../support/agentFakes';
import { baseAgentOptions, useAgentFixture } from '../support/agentFixture';

/** A real 3×2 PNG. */
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAIAAAASFvFNAAAAC0lEQVR4nGNgwAQAABQAAX3+Hu4AAAAASUVORK5CYII=';
const fixture = useAgentFixture();

describe('image tokens (OpenAI high detail)', () => {
  it('matches the published examples', () => {
    expect(imageTokens(1024, 1024)).toBe(765);
    expect(imageTokens(2048, 4096)).toBe(1105);
    expect(imageTokens(4096, 8192)).toBe(1105);
    expect(imageTokens(512, 512)).toBe(255);
    expect(imageTokens(3, 2)).toBe(255);
  });

  it('falls back to a 1024×1024 cost when the size is unknown or absurd', () => {
    expect(imageTokens(undefined, 10)).toBe(765);
    expect(imageTokens(-5, 10)).toBe(765);
  });

  it('reads the size from the header, and refuses bytes that are not an image', () => {
    expect(imageDimensions(Buffer.from(PNG_BASE64, 'base64'))).toEqual({ width: 3, height: 2, type: 'png', mimeType: 'image/png' });
    expect(imageDimensions(Buffer.from('<svg onload=alert(1)>'))).toBeUndefined();
    expect(imageDimensions(new Uint8Array(0))).toBeUndefined();
  });
});

describe('which models take images', () => {
  it('guesses from the model id under "auto"', () => {
    for (const id of ['gpt-4o-mini', 'gpt-4.1', 'openai/gpt-5', 'claude-3-5-sonnet', 'anthropic/claude-sonnet-4', 'gemini-2.5-pro', 'llava:13b', 'qwen2.5vl:7b', 'Qwen2-VL-7B-Instruct', 'pixtral-12b', 'gemma3:27b', 'llama-4-scout']) {
      expect(modelTakesImages(id, 'auto'), id).toBe(true);
    }
    for (const id of ['llama3.1:8b', 'deepseek-coder-v2', 'qwen2.5-coder:32b', 'mistral-7b-instruct', 'gpt-3.5-turbo', 'demo-model']) {
      expect(modelTakesImages(id, 'auto'), id).toBe(false);
    }
  });

  it('obeys "always" and "never"', () => {
    expect(modelTakesImages('llama3.1:8b', 'always')).toBe(true);
    expect(modelTakesImages('gpt-4o', 'never')).toBe(false);
  });
});

describe('images on the wire', () => {
  const image: UserImage = { blob: { sha256: 'a'.repeat(64), bytes: 10, chars: 10 }, mimeType: 'image/png', name: 'shot.png', width: 3, height: 2 };
  const entry = { type: 'user' as const, id: 'u', parentId: null, timestamp: 't', text: 'what is this?', images: [image] };
  const dataUrl = `data:image/png;base64,${PNG_BASE64}`;

  it('the model always reads a line naming the image', () => {
    expect(entryMessage(entry).content).toBe('what is this?\n\n[image attached: shot.png, 3×2]');
  });

  it('a model that takes images gets a text part and an image_url part; the internal field never goes out', () => {
    const message = { ...entryMessage(entry), images: [{ ...image, dataUrl }] };
    const body = buildRequestBody('gpt-4o', { messages: [message] }, detectEndpointFlags('https://api.openai.com/v1'), true);
    expect(body.messages[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'what is this?\n\n[image attached: shot.png, 3×2]' },
        { type: 'image_url', image_url: { url: dataUrl } },
      ],
    });
  });

  it('a model that does not take images gets the text only', () => {
    const message = { ...entryMessage(entry), images: [{ ...image, dataUrl }] };
    const body = buildRequestBody('llama3.1:8b', { messages: [message] }, detectEndpointFlags('http://localhost:11434/v1'), false);
    expect(body.messages[0]).toEqual({ role: 'user', content: 'what is this?\n\n[image attached: shot.png, 3×2]' });
  });
});

describe('an image through the agent loop', () => {
  it('is stored by blob, loaded for the call, and never written inline into the session file', async () => {
    const log = fixture.session.log;
    const blob = await log.blobs.put(PNG_BASE64);
    const model = scriptedModel([{ text: 'A tiny image.' }]);
    await collect(runAgent({ ...baseAgentOptions(fixture, model), userText: 'describe it', userImages: [{ blob, mimeType: 'image/png', name: 'tiny.png', width: 3, height: 2 }] }));
    const sent = model.requests[0]?.messages.at(-1);
    expect(sent).toMatchObject({ role: 'user', content: 'describe it\n\n[image attached: tiny.png, 3×2]' });
    expect(sent && 'images' in sent ? sent.images?.[0]?.dataUrl : undefined).toBe(`data:image/png;base64,${PNG_BASE64}`);
    expect(readFileSync(log.file, 'utf8')).not.toContain(PNG_BASE64);
    expect(log.path()[0]).toMatchObject({ type: 'user', images: [{ name: 'tiny.png', width: 3, height: 2 }] });
  });
});
