// Chat Completions messages as an OpenAI-compatible endpoint receives them (images become content parts in requestBody.ts).
import type { BlobRef } from '../session/entries';

/** How a user message carries an image to the endpoint (dataUrl is filled right before the call, never stored). */
export interface MessageImage {
  blob: BlobRef;
  mimeType: string;
  width?: number;
  height?: number;
  dataUrl?: string;
}

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface SystemMessage {
  role: 'system' | 'developer';
  content: string;
}

export interface UserMessage {
  role: 'user';
  content: string;
  /** Images of the message (their markers are in content); only models that take images get them on the wire. */
  images?: MessageImage[];
}

export interface AssistantMessage {
  role: 'assistant';
  /** null when the message only carries tool calls. */
  content: string | null;
  tool_calls?: ChatToolCall[];
}

export interface ToolMessage {
  role: 'tool';
  tool_call_id: string;
  content: string;
}

export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** A tool definition as sent in the request's `tools` array. */
export interface ChatToolDefinition {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}
