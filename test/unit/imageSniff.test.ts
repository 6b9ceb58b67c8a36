// Images by their bytes: whole PNG, JPEG, GIF and WebP pass with their size; other formats and cut-off files are refused with a reason.
import { describe, expect, it } from 'vitest';
import { sniffImage } from '../../src/core/context/imageSniff';
import { withImageData } from '../../src/core/context/userImages';
import type { ChatMessage } from '../../src/core/context/chatMessage';
import { GIF_1X1, HOSTILE_IMAGES, jpegBytes, PNG_3X2, WEBP_1X1 } from '../support/imageBytes';

describe('sniffImage', () => {
  it('accepts whole pictures in the four sendable formats, with their size', () => {
    expect(sniffImage(PNG_3X2)).toEqual({ mimeType: 'image/png', width: 3, height: 2 });
    expect(sniffImage(jpegBytes(640, 480))).toEqual({ mimeType: 'image/jpeg', width: 640, height: 480 });
    expect(sniffImage(Buffer.concat([jpegBytes(5, 4), Buffer.alloc(10)]))).toEqual({ mimeType: 'image/jpeg', width: 5, height: 4 });
    expect(sniffImage(GIF_1X1)).toEqual({ mimeType: 'image/gif', width: 1, height: 1 });
    expect(sniffImage(WEBP_1X1)).toEqual({ mimeType: 'image/webp', width: 1, height: 1 });
  });

  for (const hostile of HOSTILE_IMAGES) {
    it(`refuses ${hostile.name} with a reason`, () => {
      const result = sniffImage(hostile.bytes);
      expect(result).toHaveProperty('error');
      expect('error' in result ? result.error : '').toMatch(hostile.reason);
    });
  }

  it('every prefix of a picture is refused, never crashes, and only the whole file passes', () => {
    for (const picture of [PNG_3X2, jpegBytes(5, 4), GIF_1X1, WEBP_1X1]) {
      for (let cut = 0; cut < picture.length; cut++) expect(sniffImage(picture.subarray(0, cut))).toHaveProperty('error');
    }
  });
});

describe('withImageData', () => {
  const message = (sha256: string): ChatMessage => ({ role: 'user', content: 'look', images: [{ blob: { sha256, bytes: 1, chars: 1 }, mimeType: 'image/png' }] });

  it('sends the type the bytes say, and leaves an image stored by name alone (marker only)', async () => {
    const store: Record<string, string> = { a: GIF_1X1.toString('base64'), b: Buffer.from('<svg/>').toString('base64') };
    const blobs = { read: (ref: { sha256: string }) => Promise.resolve(store[ref.sha256] ?? '') };
    const [gif, svg] = await withImageData([message('a'), message('b')], blobs);
    expect(gif?.role === 'user' && gif.images?.[0]?.dataUrl).toMatch(/^data:image\/gif;base64,/);
    expect(svg?.role === 'user' && svg.images?.[0]?.dataUrl).toBeUndefined();
  });
});
