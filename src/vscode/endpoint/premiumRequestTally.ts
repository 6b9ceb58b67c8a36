// Counts one chat turn's requests to VS Code's own models (agent and summarizer) and words the note and footer.
import type { ModelStream } from '../../core/llm/modelStream';
import { OncePerSessionModel, premiumRequestFooter, premiumRequestNote } from '../../shared/premiumRequests';
import { LanguageModelStream } from './languageModelStream';

/** Session and model pairs already warned in this window. */
const warned = new OncePerSessionModel();

/** The one-line premium-request note, the first time a session uses this VS Code model; undefined otherwise. */
export function premiumRequestWarning(sessionId: string, stream: ModelStream): string | undefined {
  if (!(stream instanceof LanguageModelStream) || !warned.first(sessionId, stream.modelId)) return undefined;
  return premiumRequestNote(stream.modelName);
}

/** Snapshots the VS Code streams' request counters at the start of a turn; footer() words what the turn added. */
export class PremiumRequestTally {
  private readonly start = new Map<LanguageModelStream, number>();

  constructor(streams: readonly ModelStream[]) {
    for (const stream of streams) {
      if (stream instanceof LanguageModelStream && !this.start.has(stream)) this.start.set(stream, stream.requests);
    }
  }

  /** "N requests to <model> (each may count as a premium request)", or undefined when no VS Code model was asked. */
  footer(): string | undefined {
    return premiumRequestFooter([...this.start].map(([stream, before]) => ({ model: stream.modelName, requests: stream.requests - before })));
  }
}
