// Builds the Chat Completions request body for one call, applying the endpoint's flags.
import type { ChatMessage, UserMessage } from '../context/chatMessage';
import type { EndpointFlags } from './endpointFlags';
import type { ChatRequest } from './modelStream';

/** A user message with images, as the wire carries it: a text part, then one image_url part per image. */
export interface UserMessageWithImages {
  role: 'user';
  content: Array<{ type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } }>;
}

export type WireMessage = Exclude<ChatMessage, UserMessage> | Omit<UserMessage, 'images'> | UserMessageWithImages;

export type ChatRequestBody = Record<string, unknown> & { model: string; messages: WireMessage[]; stream: true };

/**
 * A user message's images become image_url parts when the model takes images and their data was loaded;
 * otherwise only the text goes (it names each image). The internal `images` field never reaches the wire.
 */
function wireMessage(message: ChatMessage, takesImages: boolean): WireMessage {
  if (message.role !== 'user' || message.images === undefined) return message;
  const { images, ...text } = message;
  const sendable = takesImages ? images.flatMap((image) => (image.dataUrl ? [image.dataUrl] : [])) : [];
  if (sendable.length === 0) return text;
  return { role: 'user', content: [{ type: 'text', text: text.content }, ...sendable.map((url) => ({ type: 'image_url' as const, image_url: { url } }))] };
}

/** The system prompt's role is the server's choice: OpenAI wants 'developer', most others 'system'. */
function withSystemRole(messages: ChatMessage[], role: EndpointFlags['systemRole']): ChatMessage[] {
  return messages.map((message) =>
    message.role === 'system' || message.role === 'developer' ? { ...message, role } : message,
  );
}

export function buildRequestBody(model: string, request: ChatRequest, flags: EndpointFlags, takesImages = false): ChatRequestBody {
  const body: ChatRequestBody = {
    model,
    messages: withSystemRole(request.messages, flags.systemRole).map((message) => wireMessage(message, takesImages)),
    stream: true,
  };
  if (flags.streamOptions) body['stream_options'] = { include_usage: true };
  if (flags.usageAccounting) body['usage'] = { include: true };
  if (request.tools && request.tools.length > 0) body['tools'] = request.tools;
  if (request.maxOutputTokens !== undefined) body[flags.maxTokensParameter] = request.maxOutputTokens;
  if (request.temperature !== undefined) body['temperature'] = request.temperature;
  return body;
}
