// Counts and wording for requests to VS Code's own models (Copilot), each of which may be a premium request.

/** How many requests one chat turn sent to one VS Code model, by the model's display name. */
export interface ModelRequestCount {
  model: string;
  requests: number;
}

/** Adds up counts per model name (the agent and the summarizer may be separate streams of one model); drops zeros. */
export function mergeRequestCounts(counts: readonly ModelRequestCount[]): ModelRequestCount[] {
  const merged = new Map<string, number>();
  for (const { model, requests } of counts) {
    if (!Number.isFinite(requests) || requests <= 0) continue;
    merged.set(model, (merged.get(model) ?? 0) + requests);
  }
  return [...merged].map(([model, requests]) => ({ model, requests }));
}

const requestsTo = ({ model, requests }: ModelRequestCount): string => `${requests} request${requests === 1 ? '' : 's'} to ${model}`;

/**
 * The chat reply's footer line: "3 requests to GPT-4o (each may count as a premium request)", or
 * "3 requests to GPT-4o and 1 request to Claude (…)"; undefined when the turn sent none.
 */
export function premiumRequestFooter(counts: readonly ModelRequestCount[]): string | undefined {
  const merged = mergeRequestCounts(counts);
  if (merged.length === 0) return undefined;
  const parts = merged.map(requestsTo);
  const listed = parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
  return `${listed} (each may count as a premium request)`;
}

/** The one-line warning before the first run of a session with a VS Code model. */
export function premiumRequestNote(model: string): string {
  return `@agent makes one request to ${model} per step; with Copilot each may count as a premium request.`;
}

/** Remembers which session and model pairs were already warned, so the note shows once for each. */
export class OncePerSessionModel {
  private readonly seen = new Set<string>();

  /** True the first time a session and model pair is asked about, false after. */
  first(sessionId: string, modelId: string): boolean {
    const key = JSON.stringify([sessionId, modelId]);
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    return true;
  }
}
