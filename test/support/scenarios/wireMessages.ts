// Reading a recorded chat request the way the scripted scenarios do: its messages, their text, whether it offers tools.
import type { RecordedRequest } from '../scriptedEndpoint';

export interface WireMessage {
  role: string;
  content?: unknown;
  tool_calls?: unknown[];
}

export function messagesOf(request: RecordedRequest): WireMessage[] {
  const body = request.body as { messages?: WireMessage[] };
  return Array.isArray(body.messages) ? body.messages : [];
}

/** True when the request offers tools (an agent step, not a summary request). */
export function hasTools(request: RecordedRequest): boolean {
  const body = request.body as { tools?: unknown[] };
  return Array.isArray(body.tools) && body.tools.length > 0;
}

/** A message's text when its content is a plain string, else empty. */
export function text(message: WireMessage | undefined): string {
  return typeof message?.content === 'string' ? message.content : '';
}
