// Compaction, stage 2c: how a summary is checked before it goes to a person (required sections, non-empty next steps, sizes).
import { APPENDIX_HEADING } from './summaryAppendix';
import { REQUIRED_HEADINGS } from './summaryPrompt';

export interface ValidationLimits {
  /** Most tokens the model-written part may have. */
  maxTokens: number;
  countTokens: (text: string) => number;
  /** Fewest characters a real summary has. */
  minChars?: number;
  /** Most tokens the code-written appendix may have (it is capped to this when built). */
  maxAppendixTokens?: number;
}

const MIN_CHARS = 200;

function headingPattern(heading: string): RegExp {
  const escaped = heading.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped}\\s*$`, 'mi');
}

/** The text under a heading, up to the next heading of the same or higher level. */
export function sectionBody(text: string, heading: string): string | null {
  const match = headingPattern(heading).exec(text);
  if (!match) return null;
  const rest = text.slice(match.index + match[0].length);
  const level = heading.indexOf(' ');
  const next = rest.search(new RegExp(`^#{1,${level}} `, 'm'));
  return (next >= 0 ? rest.slice(0, next) : rest).trim();
}

/** Problems of the model-written part; empty when it is acceptable. */
export function validateModelSummary(text: string, limits: ValidationLimits): string[] {
  const problems: string[] = [];
  for (const heading of REQUIRED_HEADINGS) {
    if (!headingPattern(heading).test(text)) problems.push(`missing section "${heading}"`);
  }
  const nextSteps = sectionBody(text, '## Next steps');
  if (nextSteps !== null && (nextSteps.length === 0 || /^[-*\s]*\(?none\)?\.?$/i.test(nextSteps))) {
    problems.push('"## Next steps" is empty: list at least one concrete next action');
  }
  if (text.trim().length < (limits.minChars ?? MIN_CHARS)) problems.push('the summary is too short to carry the session forward');
  const tokens = limits.countTokens(text);
  if (tokens > limits.maxTokens) problems.push(`the summary is ${tokens} tokens; keep it under ${limits.maxTokens}`);
  return problems;
}

/** Problems of the final summary (model part + appendix). */
export function validateSummary(text: string, limits: ValidationLimits): string[] {
  const at = text.search(headingPattern(APPENDIX_HEADING));
  const modelPart = at >= 0 ? text.slice(0, at) : text;
  const problems = validateModelSummary(modelPart, limits);
  if (at < 0) problems.push(`missing the file ledger ("${APPENDIX_HEADING}")`);
  if (at >= 0 && limits.maxAppendixTokens !== undefined) {
    const tokens = limits.countTokens(text.slice(at));
    if (tokens > limits.maxAppendixTokens) problems.push(`the recorded appendix is ${tokens} tokens; it may take at most ${limits.maxAppendixTokens}`);
  }
  return problems;
}
