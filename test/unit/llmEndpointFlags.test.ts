// Endpoint flags per provider URL, settings overrides, and how they shape the request body.
import { describe, expect, it } from 'vitest';
import { DEFAULT_AZURE_API_VERSION, detectEndpointFlags } from '../../src/core/llm/endpointFlags';
import { buildRequestBody } from '../../src/core/llm/requestBody';

describe('detectEndpointFlags', () => {
  it.each([
    ['https://api.openai.com/v1', 'openai', 'max_completion_tokens', 'developer', 'authorization'],
    ['https://myres.openai.azure.com/openai/deployments/gpt4o', 'azure', 'max_completion_tokens', 'system', 'api-key'],
    ['https://myres.cognitiveservices.azure.com/openai/v1', 'azure', 'max_completion_tokens', 'system', 'api-key'],
    ['https://openrouter.ai/api/v1', 'openrouter', 'max_tokens', 'system', 'authorization'],
    ['http://localhost:8000/v1', 'vllm', 'max_tokens', 'system', 'authorization'],
    ['http://127.0.0.1:8080/v1', 'llamacpp', 'max_tokens', 'system', 'authorization'],
    ['http://localhost:1234/v1', 'lmstudio', 'max_tokens', 'system', 'authorization'],
    ['http://localhost:11434/v1', 'ollama', 'max_tokens', 'system', 'authorization'],
    ['http://ollama.internal/v1', 'ollama', 'max_tokens', 'system', 'authorization'],
    ['https://llm.example.com/v1', 'generic', 'max_tokens', 'system', 'authorization'],
    ['not a url', 'generic', 'max_tokens', 'system', 'authorization'],
  ])('%s → %s', (url, flavor, maxTokensParameter, systemRole, apiKeyHeader) => {
    expect(detectEndpointFlags(url)).toMatchObject({ flavor, maxTokensParameter, systemRole, apiKeyHeader, streamOptions: true });
  });

  it('asks OpenRouter for usage accounting, and nobody else', () => {
    expect(detectEndpointFlags('https://openrouter.ai/api/v1').usageAccounting).toBe(true);
    expect(detectEndpointFlags('https://api.openai.com/v1').usageAccounting).toBe(false);
  });

  it('takes Azure api-version from the URL, defaults it for deployments, and omits it for /openai/v1', () => {
    expect(detectEndpointFlags('https://r.openai.azure.com/openai/deployments/d?api-version=2025-04-01-preview').apiVersion).toBe('2025-04-01-preview');
    expect(detectEndpointFlags('https://r.openai.azure.com/openai/deployments/d').apiVersion).toBe(DEFAULT_AZURE_API_VERSION);
    expect(detectEndpointFlags('https://r.openai.azure.com/openai/v1').apiVersion).toBeUndefined();
  });

  it('lets settings override the detection, and ignores auto', () => {
    const flags = detectEndpointFlags('http://localhost:11434/v1', { flavor: 'openai', maxTokensParameter: 'max_tokens', systemRole: 'auto' });
    expect(flags).toMatchObject({ flavor: 'openai', maxTokensParameter: 'max_tokens', systemRole: 'developer' });
    expect(detectEndpointFlags('https://api.openai.com/v1', { flavor: 'auto', systemRole: 'system' }).systemRole).toBe('system');
  });
});

describe('buildRequestBody', () => {
  const request = {
    messages: [
      { role: 'system' as const, content: 'You are an agent.' },
      { role: 'user' as const, content: 'hi' },
    ],
    maxOutputTokens: 512,
    temperature: 0,
  };

  it('applies the OpenAI flags: developer role, max_completion_tokens, stream_options', () => {
    const body = buildRequestBody('gpt-4.1', request, detectEndpointFlags('https://api.openai.com/v1'));
    expect(body).toEqual({
      model: 'gpt-4.1',
      messages: [
        { role: 'developer', content: 'You are an agent.' },
        { role: 'user', content: 'hi' },
      ],
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 512,
      temperature: 0,
    });
  });

  it('applies the OpenRouter flags: system role, max_tokens, usage accounting; omits empty tools', () => {
    const body = buildRequestBody('x/y', { ...request, tools: [] }, detectEndpointFlags('https://openrouter.ai/api/v1'));
    expect(body).toMatchObject({ max_tokens: 512, usage: { include: true } });
    expect(body.messages[0]?.role).toBe('system');
    expect(body).not.toHaveProperty('tools');
    expect(body).not.toHaveProperty('max_completion_tokens');
  });

  it('omits stream_options when the flags say the server rejects it', () => {
    const flags = { ...detectEndpointFlags('http://localhost:8080/v1'), streamOptions: false };
    expect(buildRequestBody('m', request, flags)).not.toHaveProperty('stream_options');
  });
});
