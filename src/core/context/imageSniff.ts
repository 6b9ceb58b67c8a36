// Tells an image's format by its bytes (PNG, JPEG, GIF, WebP: whole structure walked, size read), and names what anything else is.

/** A picture in a format OpenAI-compatible servers take, checked end to end. */
export interface SniffedImage {
  mimeType: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
  width: number;
  height: number;
}

/** Widest or tallest picture accepted: larger ones are damaged or hostile (servers downscale far below this). */
export const MAX_IMAGE_SIDE = 65_535;

const SENT_FORMATS = 'PNG, JPEG, GIF or WebP';

/** Formats recognised only to say what they are when refusing them. */
const OTHER_FORMATS: ReadonlyArray<{ name: string; test: (bytes: Uint8Array, head: string) => boolean }> = [
  { name: 'an SVG drawing', test: (_, head) => /^(\uFEFF)?\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!doctype svg[^>]*>\s*)?<svg[\s>]/i.test(head) || /<svg[\s>]/i.test(head) },
  { name: 'a BMP image', test: (bytes) => bytes[0] === 0x42 && bytes[1] === 0x4d },
  { name: 'an ICO icon', test: (bytes) => bytes[0] === 0 && bytes[1] === 0 && (bytes[2] === 1 || bytes[2] === 2) && bytes[3] === 0 },
  { name: 'a Photoshop (PSD) file', test: (_, head) => head.startsWith('8BPS') },
  { name: 'a TIFF image', test: (_, head) => head.startsWith('II*\u0000') || head.startsWith('MM\u0000*') },
  { name: 'a HEIC/AVIF image', test: (_, head) => head.slice(4, 8) === 'ftyp' },
  { name: 'a PDF document', test: (_, head) => head.startsWith('%PDF') },
  { name: 'an HTML page', test: (_, head) => /^\s*<(!doctype html|html)/i.test(head) },
];

const u16be = (b: Uint8Array, at: number): number => ((b[at] ?? 0) << 8) | (b[at + 1] ?? 0);
const u16le = (b: Uint8Array, at: number): number => (b[at] ?? 0) | ((b[at + 1] ?? 0) << 8);
const u24le = (b: Uint8Array, at: number): number => u16le(b, at) | ((b[at + 2] ?? 0) << 16);
const u32be = (b: Uint8Array, at: number): number => (u16be(b, at) * 0x10000) + u16be(b, at + 2);
const u32le = (b: Uint8Array, at: number): number => u16le(b, at) + u16le(b, at + 2) * 0x10000;
const ascii = (b: Uint8Array, from: number, to: number): string => String.fromCharCode(...b.subarray(from, to));

type Result = SniffedImage | { error: string };

function sized(mimeType: SniffedImage['mimeType'], width: number, height: number): Result {
  if (width < 1 || height < 1) return { error: `its header gives an empty size (${width}×${height})` };
  if (width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE) return { error: `its header gives ${width}×${height} pixels, more than ${MAX_IMAGE_SIDE} on a side` };
  return { mimeType, width, height };
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Chunks walked from IHDR to IEND: each must fit in the file, with image data before the end. */
function png(b: Uint8Array): Result {
  if (u32be(b, 8) !== 13 || ascii(b, 12, 16) !== 'IHDR') return { error: 'it is a PNG without its IHDR header' };
  const width = u32be(b, 16);
  const height = u32be(b, 20);
  let at = 8;
  let data = false;
  while (at + 12 <= b.length) {
    const length = u32be(b, at);
    const type = ascii(b, at + 4, at + 8);
    const end = at + 12 + length;
    if (end > b.length) return { error: `it is a PNG cut off inside its ${type.replace(/[^ -~]/g, '?')} chunk` };
    if (type === 'IDAT') data = true;
    if (type === 'IEND') return data ? sized('image/png', width, height) : { error: 'it is a PNG with no image data' };
    at = end;
  }
  return { error: 'it is a PNG cut off before its end (no IEND chunk)' };
}

/** Segments walked from SOI to the scan: a frame header must give the size, and the data must end in EOI. */
function jpeg(b: Uint8Array): Result {
  let at = 2;
  let size: { width: number; height: number } | undefined;
  while (at + 4 <= b.length) {
    if (b[at] !== 0xff) return { error: 'it is a JPEG whose segments are damaged' };
    const marker = b[at + 1] ?? 0;
    if (marker === 0xff) {
      at++;
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    if (marker === 0xd9) return { error: 'it is a JPEG that ends before its image data' };
    const length = u16be(b, at + 2);
    if (length < 2 || at + 2 + length > b.length) return { error: 'it is a JPEG cut off inside a header segment' };
    const frame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (frame) size = { height: u16be(b, at + 5), width: u16be(b, at + 7) };
    if (marker === 0xda) {
      if (!size) return { error: 'it is a JPEG without a frame header' };
      // The end-of-image marker closes the data; trailing zero padding (some cameras add it) is allowed.
      let last = b.length - 1;
      while (last > at && b[last] === 0) last--;
      if (b[last] !== 0xd9 || b[last - 1] !== 0xff) return { error: 'it is a JPEG cut off before its end' };
      return sized('image/jpeg', size.width, size.height);
    }
    at += 2 + length;
  }
  return { error: 'it is a JPEG cut off before its image data' };
}

/** Sub-blocks from `at` up to their zero terminator; returns the offset after it, or -1 when cut off. */
function skipSubBlocks(b: Uint8Array, at: number): number {
  let offset = at;
  while (offset < b.length) {
    const size = b[offset] ?? 0;
    if (size === 0) return offset + 1;
    offset += size + 1;
  }
  return -1;
}

/** Blocks walked from the screen descriptor to the trailer: at least one frame, nothing cut off. */
function gif(b: Uint8Array): Result {
  const width = u16le(b, 6);
  const height = u16le(b, 8);
  const flags = b[10] ?? 0;
  let at = 13 + (flags & 0x80 ? 3 * 2 ** ((flags & 7) + 1) : 0);
  let frames = 0;
  while (at < b.length) {
    const block = b[at];
    if (block === 0x3b) return frames > 0 ? sized('image/gif', width, height) : { error: 'it is a GIF with no frame' };
    if (block === 0x21) at = skipSubBlocks(b, at + 2);
    else if (block === 0x2c) {
      const local = b[at + 9] ?? 0;
      at = skipSubBlocks(b, at + 10 + (local & 0x80 ? 3 * 2 ** ((local & 7) + 1) : 0) + 1);
      frames++;
    } else return { error: 'it is a GIF whose blocks are damaged' };
    if (at < 0) break;
  }
  return { error: 'it is a GIF cut off before its end' };
}

/** The RIFF container must hold all its bytes, and its first chunk (VP8, VP8L or VP8X) gives the size. */
function webp(b: Uint8Array): Result {
  const riffEnd = 8 + u32le(b, 4);
  if (riffEnd > b.length) return { error: `it is a WebP cut off (${b.length} of ${riffEnd} bytes)` };
  const chunk = ascii(b, 12, 16);
  const chunkEnd = 20 + u32le(b, 16);
  if (chunkEnd > riffEnd) return { error: `it is a WebP whose ${chunk.trim()} chunk runs past its end` };
  if (chunk === 'VP8 ') {
    if (b[23] !== 0x9d || b[24] !== 0x01 || b[25] !== 0x2a) return { error: 'it is a WebP whose VP8 frame is damaged' };
    return sized('image/webp', u16le(b, 26) & 0x3fff, u16le(b, 28) & 0x3fff);
  }
  if (chunk === 'VP8L') {
    if (b[20] !== 0x2f) return { error: 'it is a WebP whose lossless frame is damaged' };
    const bits = u32le(b, 21);
    return sized('image/webp', (bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
  }
  if (chunk === 'VP8X') return sized('image/webp', u24le(b, 24) + 1, u24le(b, 27) + 1);
  return { error: `it is a WebP with an unknown first chunk "${chunk.replace(/[^ -~]/g, '?')}"` };
}

/**
 * The format and size of `bytes` when they are a whole PNG, JPEG, GIF or WebP; otherwise why not, as a phrase
 * ("it is an SVG drawing", "it is a PNG cut off before its end (no IEND chunk)"). Linear in the bytes.
 */
export function sniffImage(bytes: Uint8Array): Result {
  const head = ascii(bytes, 0, Math.min(bytes.length, 512));
  if (bytes.length < 16) return { error: bytes.length === 0 ? 'it is empty' : `it is only ${bytes.length} bytes long` };
  if (PNG_SIGNATURE.every((value, index) => bytes[index] === value)) return png(bytes);
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return jpeg(bytes);
  if (head.startsWith('GIF87a') || head.startsWith('GIF89a')) return gif(bytes);
  if (head.startsWith('RIFF') && head.slice(8, 12) === 'WEBP') return webp(bytes);
  const other = OTHER_FORMATS.find((format) => format.test(bytes, head));
  return { error: other ? `it is ${other.name}, and images are sent only as ${SENT_FORMATS}` : `its bytes are not a ${SENT_FORMATS} image` };
}

/** The sentence shown when an image is not sent. */
export function refusedImage(name: string, why: string): string {
  return `Not sent: ${name} is not a usable image (${why}).`;
}
