// The model-stream port: what the agent loop and the compactor call to talk to a model, and the events it yields.
import type { ChatMessage, ChatToolDefinition } from '../context/chatMessage';
import type { StopReason, ToolCall, Usage } from '../session/entries';

/** One model call: the exact messages and tools to send. */
export interface ChatRequest {
  messages: ChatMessage[];
  tools?: ChatToolDefinition[];
  maxOutputTokens?: number;
  temperature?: number;
}

export type ModelErrorKind =
  | 'overflow'
  | 'auth'
  | 'rateLimit'
  | 'server'
  | 'network'
  | 'timeout'
  | 'aborted'
  | 'badRequest'
  | 'invalidResponse'
  | 'notFound';

/** A failed model call, classified so callers can decide (compact on overflow, show auth errors, ...). */
export interface ModelError {
  kind: ModelErrorKind;
  /** Clear and human; never contains the API key. */
  message: string;
  status?: number;
  retryAfterMs?: number;
  /** Whether trying the same call again later could succeed. */
  retryable: boolean;
  /** The context window the server reported in an overflow error, when it said. */
  contextWindow?: number;
  /** The prompt size the server counted in an overflow error, when it said. */
  promptTokens?: number;
}

export interface TextDeltaEvent {
  type: 'textDelta';
  text: string;
}

export interface ReasoningDeltaEvent {
  type: 'reasoningDelta';
  text: string;
}

export interface ToolCallStartEvent {
  type: 'toolCallStart';
  index: number;
  id: string;
  name: string;
}

/** Emitted before waiting to retry a call that failed before any output streamed. */
export interface RetryEvent {
  type: 'retry';
  /** 1 for the first retry. */
  attempt: number;
  delayMs: number;
  reason: string;
}

export interface DoneEvent {
  type: 'done';
  text: string;
  reasoning?: string;
  toolCalls: ToolCall[];
  /**
   * Positions in `toolCalls` of the calls whose arguments are not valid JSON (passed through as-is for the agent loop
   * to report). Positions, not ids: servers repeat ids within one reply.
   */
  invalidArguments: number[];
  usage?: Usage;
  stopReason: StopReason;
  /** The model the server says answered (the chunks' `model`): Azure names the model behind a deployment there. */
  servedModel?: string;
}

export interface ErrorEvent {
  type: 'error';
  error: ModelError;
  /** What streamed before the failure. */
  partial: { text: string; toolCalls: ToolCall[] };
}

export type StreamEvent = TextDeltaEvent | ReasoningDeltaEvent | ToolCallStartEvent | RetryEvent | DoneEvent | ErrorEvent;

export type TerminalEvent = DoneEvent | ErrorEvent;

/** A model the agent can stream from. The iterable never throws and ends with exactly one terminal event. */
export interface ModelStream {
  stream(request: ChatRequest, signal: AbortSignal): AsyncIterable<StreamEvent>;
}
