// The guided setup's server kinds: default URLs, what they are detected as, URL checks and listing-failure messages.
import { describe, expect, it } from 'vitest';
import { detectFlavor } from '../../src/core/llm/endpointFlags';
import {
  AZURE_RESOURCE_PLACEHOLDER,
  checkBaseUrl,
  kindOfEndpoint,
  listingFailureMessage,
  normalizeBaseUrl,
  sameOrigin,
  SERVER_KINDS,
  serverKind,
} from '../../src/core/llm/serverKinds';

describe('server kinds', () => {
  it('prefills each kind with its usual URL', () => {
    expect(Object.fromEntries(SERVER_KINDS.map((kind) => [kind.id, kind.defaultUrl]))).toEqual({
      openai: 'https://api.openai.com/v1',
      openrouter: 'https://openrouter.ai/api/v1',
      azure: `https://${AZURE_RESOURCE_PLACEHOLDER}.openai.azure.com/openai/v1`,
      together: 'https://api.together.xyz/v1',
      groq: 'https://api.groq.com/openai/v1',
      mistral: 'https://api.mistral.ai/v1',
      vllm: 'http://localhost:8000/v1',
      sglang: 'http://localhost:30000/v1',
      llamacpp: 'http://localhost:8080/v1',
      lmstudio: 'http://localhost:1234/v1',
      ollama: 'http://localhost:11434/v1',
      litellm: 'http://localhost:4000/v1',
      tgi: 'http://localhost:8080/v1',
      koboldcpp: 'http://localhost:5001/v1',
      localai: 'http://localhost:8080/v1',
      textgen: 'http://127.0.0.1:5000/v1',
      other: '',
    });
  });

  it('asks for a key only where the service requires one', () => {
    const required = SERVER_KINDS.filter((kind) => kind.apiKey === 'required').map((kind) => kind.id);
    expect(required).toEqual(['openai', 'openrouter', 'azure', 'together', 'groq', 'mistral']);
  });

  it('uses flavors that the URL detection agrees with, but for TGI and LocalAI, whose usual port is llama.cpp\'s (the setup saves the flavor)', () => {
    for (const kind of SERVER_KINDS) {
      if (kind.id === 'other' || kind.id === 'tgi' || kind.id === 'localai') continue;
      expect(detectFlavor(kind.defaultUrl), kind.id).toBe(kind.flavor);
    }
    // The TGI container is published on 8080 in Hugging Face's docs, and LocalAI listens there (core/cli/run.go
    // `:8080`), as llama-server does: only the saved flavor tells them apart (and the probe asks each one's API).
    expect(detectFlavor(serverKind('tgi').defaultUrl)).toBe('llamacpp');
    expect(detectFlavor(serverKind('localai').defaultUrl)).toBe('llamacpp');
    expect(kindOfEndpoint(serverKind('tgi').defaultUrl, 'tgi')).toBe('tgi');
    expect(kindOfEndpoint(serverKind('localai').defaultUrl, 'localai')).toBe('localai');
    expect(detectFlavor('https://api.together.ai/v1')).toBe('together');
    expect(detectFlavor('http://gpu-box:5001/v1')).toBe('koboldcpp');
    expect(detectFlavor('http://tgi.internal:80/v1')).toBe('tgi');
    expect(detectFlavor('http://litellm-proxy.internal/v1')).toBe('litellm');
  });

  it('asks Azure for a deployment name: its list names models, requests name deployments', () => {
    expect(SERVER_KINDS.filter((kind) => kind.deployments).map((kind) => kind.id)).toEqual(['azure']);
  });

  it('recognizes the kind of an existing configuration', () => {
    expect(kindOfEndpoint('', 'auto')).toBe('other');
    expect(kindOfEndpoint('http://localhost:11434/v1', 'auto')).toBe('ollama');
    expect(kindOfEndpoint('http://gpu-box:9000/v1', 'vllm')).toBe('vllm');
    expect(kindOfEndpoint('http://gpu-box:9000/v1', 'auto')).toBe('other');
    expect(kindOfEndpoint('https://me.openai.azure.com/openai/v1', 'auto')).toBe('azure');
  });

  it('looks kinds up by id', () => {
    expect(serverKind('lmstudio').label).toBe('LM Studio');
  });
});

describe('checkBaseUrl', () => {
  it('accepts http and https URLs', () => {
    expect(checkBaseUrl('http://localhost:11434/v1')).toBeUndefined();
    expect(checkBaseUrl(' https://api.openai.com/v1 ')).toBeUndefined();
  });

  it('says what is wrong with the rest', () => {
    expect(checkBaseUrl('')).toMatch(/Enter the server's base URL/);
    expect(checkBaseUrl('localhost:11434')).toMatch(/http:\/\/ or https:\/\//);
    expect(checkBaseUrl('ftp://example.com/v1')).toMatch(/http:\/\/ or https:\/\//);
    expect(checkBaseUrl('not a url')).toMatch(/not a URL/);
    expect(checkBaseUrl('https://user:secret@example.com/v1')).toMatch(/credentials/);
  });

  it('refuses the Azure placeholder until it is replaced', () => {
    const azure = serverKind('azure');
    expect(checkBaseUrl(azure.defaultUrl, azure)).toMatch(/Replace YOUR-RESOURCE/);
    expect(checkBaseUrl('https://contoso.openai.azure.com/openai/v1', azure)).toBeUndefined();
  });
});

describe('URL helpers', () => {
  it('saves URLs trimmed and without trailing slashes', () => {
    expect(normalizeBaseUrl('  http://localhost:1234/v1//  ')).toBe('http://localhost:1234/v1');
  });

  it('treats only the same scheme, host and port as the same server', () => {
    expect(sameOrigin('https://api.openai.com/v1', 'https://api.openai.com/v2')).toBe(true);
    expect(sameOrigin('https://api.openai.com/v1', 'https://openrouter.ai/api/v1')).toBe(false);
    expect(sameOrigin('http://localhost:8000/v1', 'http://localhost:8080/v1')).toBe(false);
    expect(sameOrigin('', 'http://localhost:8080/v1')).toBe(false);
  });
});

describe('listingFailureMessage', () => {
  it('points a local server that does not answer at how to start it', () => {
    const text = listingFailureMessage(serverKind('ollama'), 'http://localhost:11434/v1', { kind: 'network', message: 'Could not reach the endpoint: connect ECONNREFUSED' });
    expect(text).toMatch(/^Nothing answered at http:\/\/localhost:11434\/v1\. Is Ollama running/);
    expect(text).toContain('ECONNREFUSED');
  });

  it('names the key, the path or the server by the kind of failure', () => {
    const openai = serverKind('openai');
    expect(listingFailureMessage(openai, 'https://api.openai.com/v1', { kind: 'auth', message: 'x' })).toMatch(/refused the API key/);
    expect(listingFailureMessage(openai, 'https://api.openai.com', { kind: 'notFound', message: 'x' })).toMatch(/usually end in \/v1/);
    expect(listingFailureMessage(openai, 'https://example.com', { kind: 'invalidResponse', message: 'x' })).toMatch(/not like an OpenAI-compatible server/);
    expect(listingFailureMessage(openai, 'https://example.com', { kind: 'server', message: 'boom' })).toBe('Listing the models at https://example.com failed. (boom)');
  });
});
