// Fault family (class 3): pictures by content: other formats, cut-off and bit-flipped files are refused, and a refused image never poisons later turns.
import { sniffImage } from '../../src/core/context/imageSniff';
import { imageDimensions, withImageData } from '../../src/core/context/userImages';
import type { ChatRequest, StreamEvent } from '../../src/core/llm/modelStream';
import { ImageRejections } from '../../src/core/llm/imageRejections';
import { OpenAiChatClient } from '../../src/core/llm/openaiChatClient';
import { GIF_1X1, HOSTILE_IMAGES, jpegBytes, PNG_3X2, WEBP_1X1 } from '../support/imageBytes';
import { passed, runCases, type HostileCase } from './caseRunner';
import { runFamily } from './familyReport';
import { SeededRandom } from './seededRandom';

const PICTURES: Array<[string, Buffer]> = [['png', PNG_3X2], ['jpeg', jpegBytes(64, 48)], ['gif', GIF_1X1], ['webp', WEBP_1X1]];
const FLIPS_PER_PICTURE = 200;

/** A sniff that accepts must agree with imageDimensions and give a sane size; one that refuses must say why. */
function checkSniff(bytes: Uint8Array, mustRefuse: boolean): string[] {
  const result = sniffImage(bytes);
  if ('error' in result) return result.error.length > 0 ? [] : ['refused without a reason'];
  if (mustRefuse) return [`accepted as ${result.mimeType}`];
  const dims = imageDimensions(bytes);
  if (!dims || dims.width !== result.width || dims.height !== result.height) return ['imageDimensions disagrees with sniffImage'];
  if (result.width < 1 || result.height < 1 || result.width > 65_535 || result.height > 65_535) return [`size ${result.width}×${result.height}`];
  return [];
}

function byteCases(): HostileCase[] {
  const cases: HostileCase[] = HOSTILE_IMAGES.map((hostile) => ({
    name: `refuse ${hostile.name}`,
    run: () => Promise.resolve({ failures: checkSniff(hostile.bytes, true), bytesLost: 0 }),
  }));
  for (const [format, picture] of PICTURES) {
    cases.push({
      name: `${format}: every cut-off prefix refused`,
      run: () => {
        const outcome = passed();
        for (let cut = 0; cut < picture.length; cut++) outcome.failures.push(...checkSniff(picture.subarray(0, cut), true).map((why) => `prefix ${cut}: ${why}`));
        outcome.failures.push(...checkSniff(picture, false));
        return Promise.resolve(outcome);
      },
    });
    cases.push({
      name: `${format}: ${FLIPS_PER_PICTURE} seeded byte flips never crash`,
      run: () => {
        const outcome = passed();
        const random = new SeededRandom(format.length * 7919);
        for (let flip = 0; flip < FLIPS_PER_PICTURE; flip++) {
          const copy = Buffer.from(picture);
          for (let n = random.int(1, 4); n > 0; n--) copy[random.int(0, copy.length - 1)] = random.int(0, 255);
          outcome.failures.push(...checkSniff(copy, false).map((why) => `flip ${flip}: ${why}`));
        }
        return Promise.resolve(outcome);
      },
    });
  }
  return cases;
}

const SSE_OK = 'data: {"id":"1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';

/** Five turns against an endpoint that refuses any request with an image_url (with `message`): how many turns failed, and how many sent the image. */
async function turnsAgainstRefusal(message: string): Promise<{ failedTurns: number; imagesSent: number }> {
  const rejections = new ImageRejections();
  let imagesSent = 0;
  const fetch: typeof globalThis.fetch = (_input, init) => {
    const body = typeof init?.body === 'string' ? init.body : '';
    if (body.includes('image_url')) {
      imagesSent++;
      return Promise.resolve(new Response(JSON.stringify({ error: { message } }), { status: 400, headers: { 'content-type': 'application/json' } }));
    }
    return Promise.resolve(new Response(SSE_OK, { status: 200, headers: { 'content-type': 'text/event-stream' } }));
  };
  const [data] = await withImageData([{ role: 'user', content: 'see', images: [{ blob: { sha256: 'a'.repeat(64), bytes: 1, chars: 1 }, mimeType: 'image/png' }] }], { read: () => Promise.resolve(PNG_3X2.toString('base64')) });
  let failedTurns = 0;
  for (let turn = 0; turn < 5; turn++) {
    const client = new OpenAiChatClient({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: '', model: 'gpt-4o', timeoutMs: 5000, maxRetries: 2, fetch, sleep: () => Promise.resolve(), imageRejections: rejections });
    const request: ChatRequest = { messages: [data ?? { role: 'user', content: '' }, { role: 'user', content: `turn ${turn}` }] };
    let last: StreamEvent | undefined;
    for await (const event of client.stream(request, new AbortController().signal)) last = event;
    if (last?.type !== 'done') failedTurns++;
  }
  return { failedTurns, imagesSent };
}

let poisonedTurns = 0;

function refusalCases(): HostileCase[] {
  return ['Invalid image data', 'image_url is only supported by certain models', 'Unsupported MIME type: image/png', 'this model does not support vision', 'Bad request: content[1] invalid'].map((message) => ({
    name: `endpoint refuses with "${message}"`,
    run: async () => {
      const outcome = passed();
      const { failedTurns, imagesSent } = await turnsAgainstRefusal(message);
      poisonedTurns += failedTurns;
      if (failedTurns > 0) outcome.failures.push(`${failedTurns} of 5 turns failed`);
      if (imagesSent > 1) outcome.failures.push(`the refused image was sent ${imagesSent} times`);
      return outcome;
    },
  }));
}

runFamily('hostile images', () => runCases('hostile images', [...byteCases(), ...refusalCases()], () => `${poisonedTurns} of ${refusalCases().length * 5} turns failed after an image refusal`));
