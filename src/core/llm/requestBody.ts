// Builds the Chat Completions request body for one call, applying the endpoint's flags.
import type { ChatMessage } from '../context/chatMessage';
import type { EndpointFlags } from './endpointFlags';
import type { ChatRequest } from './modelStream';

export type ChatRequestBody = Record<string, unknown> & { model: string; messages: ChatMessage[]; stream: true };

/** The system prompt's role is the server's choice: OpenAI wants 'developer', most others 'system'. */
function withSystemRole(messages: ChatMessage[], role: EndpointFlags['systemRole']): ChatMessage[] {
  return messages.map((message) =>
    message.role === 'system' || message.role === 'developer' ? { ...message, role } : message,
  );
}

export function buildRequestBody(model: string, request: ChatRequest, flags: EndpointFlags): ChatRequestBody {
  const body: ChatRequestBody = {
    model,
    messages: withSystemRole(request.messages, flags.systemRole),
    stream: true,
  };
  if (flags.streamOptions) body['stream_options'] = { include_usage: true };
  if (flags.usageAccounting) body['usage'] = { include: true };
  if (request.tools && request.tools.length > 0) body['tools'] = request.tools;
  if (request.maxOutputTokens !== undefined) body[flags.maxTokensParameter] = request.maxOutputTokens;
  if (request.temperature !== undefined) body['temperature'] = request.temperature;
  return body;
}
