// Images in user messages: their token cost, the text marker the model always reads, and which models take them.
import type { BlobRef, UserImage } from '../session/entries';
import type { ChatMessage } from './chatMessage';
import { sniffImage } from './imageSniff';

/** The image types OpenAI-compatible servers accept in an image_url part. */
export const IMAGE_MIME_TYPES: Readonly<Record<string, string>> = { png: 'image/png', jpeg: 'image/jpeg', jpg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' };

/** Larger images are refused when attached: servers reject them (OpenAI's limit is 20 MB) and base64 adds a third. */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

/** What an image costs when its size is unknown: a 1024×1024 image at high detail. */
export const UNKNOWN_IMAGE_TOKENS = 765;

/**
 * OpenAI's published cost of an image at detail "high" (what "auto" picks for any image worth sending): fit in
 * 2048×2048, scale the shorter side down to 768, then 170 tokens per 512-pixel tile plus 85.
 */
export function imageTokens(width: number | undefined, height: number | undefined): number {
  if (!width || !height || width <= 0 || height <= 0) return UNKNOWN_IMAGE_TOKENS;
  let w = width;
  let h = height;
  const fit = Math.min(1, 2048 / Math.max(w, h));
  w *= fit;
  h *= fit;
  const shorter = Math.min(w, h);
  if (shorter > 768) {
    w *= 768 / shorter;
    h *= 768 / shorter;
  }
  return 85 + 170 * Math.ceil(w / 512) * Math.ceil(h / 512);
}

/**
 * Width, height and type from the image's bytes, or undefined for anything that is not a whole PNG, JPEG, GIF
 * or WebP (SVG, BMP, ICO, PSD, a PNG cut off after its header...): see sniffImage for the reason.
 */
export function imageDimensions(bytes: Uint8Array): { width: number; height: number; type: string; mimeType: string } | undefined {
  const sniffed = sniffImage(bytes);
  if ('error' in sniffed) return undefined;
  return { width: sniffed.width, height: sniffed.height, type: sniffed.mimeType.slice('image/'.length), mimeType: sniffed.mimeType };
}

/** The line the model reads for each image, sent or not: its name and size, so the conversation can refer to it. */
export function imageMarker(image: UserImage): string {
  const size = image.width && image.height ? `, ${image.width}×${image.height}` : '';
  return `[image attached: ${image.name.replace(/[[\]\r\n]/g, ' ')}${size}]`;
}

/** Every image's tokens on a message (counted as sent: a model that takes none is only overcounted, never under). */
export function imagesTokens(images: ReadonlyArray<Pick<UserImage, 'width' | 'height'>> | undefined): number {
  return (images ?? []).reduce((sum, image) => sum + imageTokens(image.width, image.height), 0);
}

/** Model families known to read images; the endpoint.imageInput setting overrides the guess. */
const VISION_MODELS = [
  /gpt-4o/, /gpt-4\.1/, /gpt-4-turbo/, /gpt-4-vision/, /gpt-5/, /\bo[134](-|$)/, /claude-3/, /claude-(opus|sonnet|haiku)-4/, /claude-[a-z]+-4/, /gemini/,
  /llava/, /vision/, /qwen[\d.]*-?vl/, /qwen2\.5vl/, /pixtral/, /gemma-?3/, /llama-?4/, /minicpm-v/, /moondream/, /bakllava/, /mistral-(small|medium)-3/, /grok-(2-vision|4)/,
];

export type ImageInputMode = 'auto' | 'always' | 'never';

/** True when images go to this model: by the setting, or for "auto" by its id. */
export function modelTakesImages(modelId: string, mode: ImageInputMode): boolean {
  if (mode !== 'auto') return mode === 'always';
  const id = modelId.toLowerCase();
  return VISION_MODELS.some((pattern) => pattern.test(id));
}

/**
 * Copies of the messages whose images carry their data URL, read from the blob store right before a call (the
 * base64 text never sits in the log, the counts or the context cache). The bytes are checked again and the
 * type comes from them, not from what was stored: an image whose blob is missing, corrupt or not a whole PNG,
 * JPEG, GIF or WebP (stored by an older version, say) is left without data, so only its marker reaches the model.
 */
export async function withImageData(messages: readonly ChatMessage[], blobs: { read(ref: BlobRef): Promise<string> }): Promise<ChatMessage[]> {
  return Promise.all(
    messages.map(async (message) => {
      if (message.role !== 'user' || !message.images?.length) return message;
      const images = await Promise.all(
        message.images.map(async (image) => {
          const data = await blobs.read(image.blob).catch(() => undefined);
          const sniffed = data === undefined ? undefined : sniffImage(Buffer.from(data, 'base64'));
          return sniffed === undefined || 'error' in sniffed ? image : { ...image, mimeType: sniffed.mimeType, dataUrl: `data:${sniffed.mimeType};base64,${data}` };
        }),
      );
      return { ...message, images };
    }),
  );
}
