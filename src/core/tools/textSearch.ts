// The search_text loop shared by every WorkspaceAccess: bounded files and time, the regex run off the thread.
import { LineMatchWorker } from './lineMatchWorker';
import type { SearchResult, TextMatch } from './workspaceAccess';
import { WorkspaceRefusal } from './workspaceAccess';

/** A file the search may look at; `read` resolves undefined when it cannot or must not be read. */
export interface SearchCandidate {
  relative: string;
  read(): Promise<string | undefined>;
}

export interface SearchLimits {
  /** Files searched before the search stops and says so. */
  maxFiles: number;
  /** Bytes of one file; larger files are skipped (and counted). */
  maxFileBytes: number;
  /** Time the regex may take on one file before the pattern is called too slow. */
  perFileMs: number;
  /** Wall time of the whole search before it stops with what it found. */
  totalMs: number;
}

export const SEARCH_LIMITS: SearchLimits = {
  maxFiles: 10_000,
  maxFileBytes: 8 * 1024 * 1024,
  perFileMs: 2_000,
  totalMs: 30_000,
};

function tooSlow(pattern: string, file: string, limitMs: number): WorkspaceRefusal {
  const shown = JSON.stringify(pattern.length > 200 ? `${pattern.slice(0, 200)}...` : pattern);
  return new WorkspaceRefusal(
    `The regular expression ${shown} is too slow: matching it against ${file} took more than ${limitMs / 1000} s, so the search was stopped. ` +
      'Nested or adjacent quantifiers such as (a+)+ or (\\w+\\s?)+ backtrack exponentially; simplify the pattern, anchor it, or narrow the files with glob.',
  );
}

interface SearchRequest {
  pattern: string;
  regex: RegExp;
  limit: number;
  signal?: AbortSignal;
}

/** Searches the candidates in order until `limit` matches, the file or time limit, or cancellation; notes say which. */
export async function searchCandidates(
  candidates: AsyncIterable<SearchCandidate> | Iterable<SearchCandidate>,
  request: SearchRequest,
  limits: SearchLimits = SEARCH_LIMITS,
): Promise<SearchResult> {
  const worker = new LineMatchWorker(request.regex);
  const started = Date.now();
  const matches: TextMatch[] = [];
  const notes: string[] = [];
  let searched = 0;
  let skipped = 0;
  try {
    for await (const candidate of candidates) {
      if (request.signal?.aborted || matches.length >= request.limit) break;
      const elapsed = Date.now() - started;
      if (searched >= limits.maxFiles || elapsed >= limits.totalMs) {
        const why = searched >= limits.maxFiles ? `after ${searched} files` : `after ${Math.round(elapsed / 1000)} s (${searched} files searched)`;
        notes.push(`search stopped ${why}; narrow it with glob to search the rest`);
        break;
      }
      const text = await candidate.read();
      if (text === undefined) skipped++;
      if (text === undefined || text.slice(0, 8000).includes('\0')) continue;
      searched++;
      const budget = Math.min(limits.perFileMs, limits.totalMs - elapsed);
      const outcome = await worker.match(text, request.limit - matches.length, budget, request.signal);
      if (outcome.kind === 'aborted') break;
      if (outcome.kind === 'timeout') {
        if (budget >= limits.perFileMs) throw tooSlow(request.pattern, candidate.relative, limits.perFileMs);
        notes.push(`search stopped after ${Math.round(limits.totalMs / 1000)} s (${searched} files searched); narrow it with glob to search the rest`);
        break;
      }
      for (const match of outcome.matches) matches.push({ path: candidate.relative, line: match.line, text: match.text });
    }
  } finally {
    await worker.close();
  }
  if (request.signal?.aborted) notes.push('cancelled by the user');
  if (skipped > 0) notes.push(`${skipped} file${skipped === 1 ? '' : 's'} skipped: unreadable, larger than ${limits.maxFileBytes / 1024 / 1024} MB, hard-linked or not regular files`);
  return { matches, notes };
}
