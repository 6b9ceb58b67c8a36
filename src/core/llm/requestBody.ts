// Builds the Chat Completions request body for one call, applying the endpoint's flags.
import type { ChatMessage, UserMessage } from '../context/chatMessage';
import type { EndpointFlags } from './endpointFlags';
import { REFUSED_IMAGE_NOTE } from './imageRejections';
import type { ChatRequest } from './modelStream';

/** A user message with images, as the wire carries it: a text part, then one image_url part per image. */
export interface UserMessageWithImages {
  role: 'user';
  content: Array<{ type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } }>;
}

export type WireMessage = Exclude<ChatMessage, UserMessage> | Omit<UserMessage, 'images'> | UserMessageWithImages;

export type ChatRequestBody = Record<string, unknown> & { model: string; messages: WireMessage[]; stream: true };

/** Which images go as pictures: whether the model takes any, and the content hashes the endpoint refused before. */
export interface ImagePolicy {
  takesImages: boolean;
  refused?: ReadonlySet<string>;
}

/**
 * A user message's images become image_url parts when the model takes images, their data was loaded and the
 * endpoint has not refused them; otherwise only the text goes (it names each image, and a refused one gets a
 * note in its place). The internal `images` field never reaches the wire.
 */
function wireMessage(message: ChatMessage, policy: ImagePolicy): WireMessage {
  if (message.role !== 'user' || message.images === undefined) return message;
  const { images, ...text } = message;
  const loaded = policy.takesImages ? images.filter((image) => image.dataUrl) : [];
  const refused = loaded.filter((image) => policy.refused?.has(image.blob.sha256));
  const sendable = loaded.flatMap((image) => (image.dataUrl && !policy.refused?.has(image.blob.sha256) ? [image.dataUrl] : []));
  const content = refused.length > 0 ? `${text.content}\n${REFUSED_IMAGE_NOTE}` : text.content;
  if (sendable.length === 0) return { ...text, content };
  return { role: 'user', content: [{ type: 'text', text: content }, ...sendable.map((url) => ({ type: 'image_url' as const, image_url: { url } }))] };
}

/** Content hashes of the images a request body sends as pictures. */
export function sentImageHashes(request: ChatRequest, policy: ImagePolicy): string[] {
  if (!policy.takesImages) return [];
  return request.messages.flatMap((message) => (message.role === 'user' && message.images ? message.images.filter((image) => image.dataUrl && !policy.refused?.has(image.blob.sha256)).map((image) => image.blob.sha256) : []));
}

/** The system prompt's role is the server's choice: OpenAI wants 'developer', most others 'system'. */
function withSystemRole(messages: ChatMessage[], role: EndpointFlags['systemRole']): ChatMessage[] {
  return messages.map((message) =>
    message.role === 'system' || message.role === 'developer' ? { ...message, role } : message,
  );
}

export function buildRequestBody(model: string, request: ChatRequest, flags: EndpointFlags, images: boolean | ImagePolicy = false): ChatRequestBody {
  const policy = typeof images === 'boolean' ? { takesImages: images } : images;
  const body: ChatRequestBody = {
    model,
    messages: withSystemRole(request.messages, flags.systemRole).map((message) => wireMessage(message, policy)),
    stream: true,
  };
  if (flags.streamOptions) body['stream_options'] = { include_usage: true };
  if (flags.usageAccounting) body['usage'] = { include: true };
  if (request.tools && request.tools.length > 0) body['tools'] = request.tools;
  if (request.maxOutputTokens !== undefined) body[flags.maxTokensParameter] = request.maxOutputTokens;
  if (request.temperature !== undefined) body['temperature'] = request.temperature;
  return body;
}
