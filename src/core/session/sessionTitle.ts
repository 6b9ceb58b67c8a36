// A session's title comes from its first request: one line, clipped (sessions started by a request, /new and hand-offs alike).
import type { SessionEntry } from './entries';

/** Longest title, in characters (a longer request is clipped with an ellipsis). */
export const TITLE_CHARS = 60;

/** The title a request gives its session, or undefined for an empty request (the session waits for one with words). */
export function titleFromRequest(text: string): string | undefined {
  const line = text.replace(/\s+/g, ' ').trim();
  if (!line) return undefined;
  return line.length > TITLE_CHARS ? `${line.slice(0, TITLE_CHARS - 1)}…` : line;
}

/** The title of the session's first request with words, in file order (every branch shares it), or undefined before one. */
export function firstRequestTitle(entries: Iterable<SessionEntry>): string | undefined {
  for (const entry of entries) {
    if (entry.type !== 'user') continue;
    const title = titleFromRequest(entry.text);
    if (title) return title;
  }
  return undefined;
}
