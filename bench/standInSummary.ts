// The deterministic stand-in for the summarizing model, the same writer for every policy at the length its prompt produces: the required sections, part specifics copied from what it was given, part prose.
import { REQUIRED_HEADINGS } from '../src/core/compaction/summaryPrompt';
import { salientTokens } from './needRetention';
import { OURS_SUMMARY_TOKENS } from './summaryLengths';

const FILLER = 'The agent read the files named in the ledger and fixed what the user asked; details follow. ';

/** Share of the summary the stand-in spends on specifics copied verbatim (paths, identifiers, numbers); the rest is prose. */
const SPECIFICS_SHARE = 0.5;
/** Characters per token of a list of specifics (short tokens with a bullet each). */
const CHARS_PER_TOKEN = 3;

/** The salient tokens of a text, the most recently mentioned first (a summary keeps the newest specifics). */
export function recentSpecifics(text: string): string[] {
  const seen = new Set<string>();
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i] ?? '';
    if (line.trim() === '') continue;
    for (const token of salientTokens(line)) seen.add(token);
  }
  return [...seen];
}

/** The summary at an estimated size: half specifics at CHARS_PER_TOKEN, half filler at 20 tokens a sentence. */
function draft(tokens: number, specificsOf: readonly string[]): string {
  const specifics: string[] = [];
  let chars = 0;
  const budget = tokens * SPECIFICS_SHARE * CHARS_PER_TOKEN;
  for (const token of specificsOf) {
    if (chars + token.length + 3 > budget) break;
    specifics.push(`- ${token}`);
    chars += token.length + 3;
  }
  const proseTokens = tokens - Math.ceil(chars / CHARS_PER_TOKEN);
  const body = FILLER.repeat(Math.max(1, Math.floor(proseTokens / 20 / REQUIRED_HEADINGS.length)));
  return REQUIRED_HEADINGS.map((heading) => {
    if (heading === '## Next steps') return `${heading}\n- Continue with the next request.`;
    if (heading === '## Critical context' && specifics.length > 0) return `${heading}\n${body}\n${specifics.join('\n')}`;
    return `${heading}\n${body}`;
  }).join('\n\n');
}

/**
 * A valid summary of `tokens` tokens, passing our validation. With a `source` (the text the summary request carried),
 * half of it lists that text's specifics verbatim, newest first: a model that follows "preserve exact file paths,
 * function names and error messages" within its size. What it picks never depends on what later steps use. With
 * `count`, the draft is shrunk until the count says it is within `tokens` (a model told a size keeps to it).
 */
export function standInSummary(tokens: number = OURS_SUMMARY_TOKENS, source = '', count?: (text: string) => number): string {
  const specifics = source ? recentSpecifics(source) : [];
  let text = draft(tokens, specifics);
  if (!count) return text;
  let target = tokens;
  for (let attempt = 0; attempt < 6; attempt++) {
    const size = count(text);
    if (size <= tokens) break;
    target = Math.max(1, Math.floor((target * tokens) / size) - 2);
    text = draft(target, specifics);
  }
  return text;
}

/** What the stand-in answers when asked for the head of a split turn (a few bullets). */
export const TURN_PREFIX_STAND_IN = '- The user asked for the change described in the kept request.\n- The agent read the relevant files and ran the tests; the kept steps continue from there.';

/** Tokens of specifics the stand-in lists in a split turn's head summary (the same for every policy that writes one). */
const TURN_PREFIX_SPECIFICS_TOKENS = 150;

/** The stand-in's split-turn head summary of what that request carried: two bullets, then its newest specifics. */
export function turnPrefixStandIn(source: string): string {
  const specifics: string[] = [];
  let chars = 0;
  for (const token of recentSpecifics(source)) {
    if (chars + token.length + 3 > TURN_PREFIX_SPECIFICS_TOKENS * CHARS_PER_TOKEN) break;
    specifics.push(`- ${token}`);
    chars += token.length + 3;
  }
  return [TURN_PREFIX_STAND_IN, ...specifics].join('\n');
}
