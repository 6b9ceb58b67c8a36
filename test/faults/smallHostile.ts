// Fault family (class 8): long legal names written through temp files, hard-linked pictures, 200 answers that are no stream, and 100,000-character paths.
import { linkSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import type { StreamEvent } from '../../src/core/llm/modelStream';
import { ImageRejections } from '../../src/core/llm/imageRejections';
import { OpenAiChatClient } from '../../src/core/llm/openaiChatClient';
import { nodeFileIo } from '../../src/core/storage/fileIo';
import { resolveSafely } from '../../src/core/tools/pathSafety';
import { readRegularFile, writeFileAtomically } from '../../src/core/tools/safeFileIo';
import { PNG_3X2 } from '../support/imageBytes';
import { passed, runCases, type HostileCase } from './caseRunner';
import { runFamily } from './familyReport';

/** Names of 200–255 bytes in one-, two-, three- and four-byte characters. */
function longNames(): Array<[string, string]> {
  const names: Array<[string, string]> = [];
  for (const bytes of [200, 231, 232, 240, 250, 254, 255]) names.push([`${bytes} ASCII bytes`, 'n'.repeat(bytes)]);
  names.push(['254 bytes of é', 'é'.repeat(127)], ['255 bytes of €', '€'.repeat(85)], ['252 bytes of emoji', '😀'.repeat(63)], ['dots and spaces', `. a ${'.'.repeat(240)}`]);
  return names;
}

function nameCases(root: string): HostileCase[] {
  return longNames().map(([label, name], index) => ({
    name: `temp-file write: ${label}`,
    run: async () => {
      const outcome = passed();
      const dir = nodePath.join(root, `names-${index}`);
      mkdirSync(dir);
      const target = nodePath.join(dir, name);
      const text = `content of ${label}`;
      await writeFileAtomically(target, text, [dir], label);
      await nodeFileIo.writeFileAtomic(target, `${text}, again`);
      const now = readFileSync(target, 'utf8');
      if (now !== `${text}, again`) outcome.bytesLost += Buffer.byteLength(text);
      if (readdirSync(dir).length !== 1) outcome.failures.push(`temp files left: ${readdirSync(dir).length - 1}`);
      return outcome;
    },
  }));
}

function linkCases(root: string): HostileCase[] {
  return [
    {
      name: 'a hard-linked picture the user picked is read',
      run: async () => {
        const outcome = passed();
        const original = nodePath.join(root, 'photo.png');
        writeFileSync(original, PNG_3X2);
        linkSync(original, nodePath.join(root, 'photo-link.png'));
        const bytes = await readRegularFile(nodePath.join(root, 'photo-link.png'), 'photo-link.png', 1024 * 1024, 'allow');
        if (!bytes.equals(PNG_3X2)) outcome.failures.push('the picture read differs');
        const refused = await readRegularFile(original, 'photo.png').then(() => false, () => true);
        if (!refused) outcome.failures.push('a hard-linked workspace file was read by a tool');
        return outcome;
      },
    },
  ];
}

const BODIES: Array<[string, string, string, RegExp]> = [
  ['HTML login page', 'text/html; charset=utf-8', '<!doctype html><html><body><form>Sign in</form></body></html>', /HTML page/],
  ['HTML without a type', '', '<html><body>proxy error</body></html>', /without a finish reason|HTML|not a stream/],
  ['one JSON completion', 'application/json', '{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}', /one JSON body/],
  ['JSON with a charset', 'application/json; charset=utf-8', '{"ok":true}', /one JSON body/],
  ['plain text', 'text/plain', 'OK', /text\/plain, not a stream/],
  ['XML', 'application/xml', '<?xml version="1.0"?><error/>', /application\/xml, not a stream/],
  ['empty body', 'text/event-stream', '', /without a finish reason/],
  ['a huge HTML page', 'text/html', `<html>${'<p>x</p>'.repeat(200_000)}</html>`, /HTML page/],
];

function bodyCases(): HostileCase[] {
  return BODIES.map(([label, type, body, expected]) => ({
    name: `200 OK carrying ${label}`,
    run: async () => {
      const outcome = passed();
      const fetch: typeof globalThis.fetch = () => Promise.resolve(new Response(body, { status: 200, headers: type ? { 'content-type': type } : {} }));
      const client = new OpenAiChatClient({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: '', model: 'm', timeoutMs: 5000, maxRetries: 1, fetch, sleep: () => Promise.resolve(), imageRejections: new ImageRejections() });
      let last: StreamEvent | undefined;
      for await (const event of client.stream({ messages: [{ role: 'user', content: 'hi' }] }, new AbortController().signal)) last = event;
      const message = last?.type === 'error' ? last.error.message : '';
      if (last?.type !== 'error') outcome.failures.push(`ended ${last?.type ?? 'with nothing'}`);
      else if (!expected.test(message)) outcome.failures.push(`says "${message.slice(0, 160)}"`);
      if (message.length > 2500) outcome.failures.push(`a ${message.length}-character message`);
      return outcome;
    },
  }));
}

let slowestPathMs = 0;

function pathCases(root: string): HostileCase[] {
  const paths: Array<[string, string]> = [
    ['100,000 characters of a/', 'a/'.repeat(50_000)],
    ['100,000 characters, one name', 'x'.repeat(100_000)],
    ['4,097 characters', `${'d/'.repeat(2048)}x`],
    ['1,000,000 characters of ../', '../'.repeat(333_334)],
    ['30,000 four-byte characters', '😀'.repeat(30_000)],
    ['a 256-byte name', `src/${'n'.repeat(256)}`],
  ];
  return paths.map(([label, raw]) => ({
    name: `path of ${label}`,
    run: async () => {
      const outcome = passed();
      const started = Date.now();
      const error = await resolveSafely(raw, [root]).then(() => undefined, (caught: unknown) => caught);
      const took = Date.now() - started;
      slowestPathMs = Math.max(slowestPathMs, took);
      const message = error instanceof Error ? error.message : '';
      if (!error) outcome.failures.push('accepted');
      if (message.length > 600) outcome.failures.push(`the refusal is ${message.length} characters (echoes the path)`);
      // Refused on its length before any walk: well under the 7.6 s a 100,000-character path took before.
      if (took > 500) outcome.failures.push(`took ${took} ms`);
      return outcome;
    },
  }));
}

runFamily('small hostile', async () => {
  const root = mkdtempSync(nodePath.join(tmpdir(), 'faults-small-'));
  try {
    return await runCases('small hostile', [...nameCases(root), ...linkCases(root), ...bodyCases(), ...pathCases(root)], () => `slowest long-path refusal ${slowestPathMs} ms`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
