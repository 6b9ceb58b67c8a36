// Chooses the BPE encoding that counts a model's tokens, and whether that count is exact for it.

export type EncodingName = 'o200k_base' | 'cl100k_base';

export interface EncodingChoice {
  encoding: EncodingName;
  /** True when the model is an OpenAI model whose tokenizer this encoding is; false for an estimate. */
  exact: boolean;
}

/** Model families tokenized by o200k_base (gpt-4o, gpt-4.1, gpt-4.5, gpt-5, o1/o3/o4, chatgpt-4o, codex). */
const O200K_PATTERNS: readonly RegExp[] = [
  /^gpt-4o/,
  /^gpt-4\.1/,
  /^gpt-4\.5/,
  /^gpt-5/,
  /^o[1-9](-|$)/,
  /^chatgpt-4o/,
  /^codex-/,
  /^gpt-oss/,
];

/** Model families tokenized by cl100k_base (gpt-4, gpt-4-turbo, gpt-3.5-turbo). */
const CL100K_PATTERNS: readonly RegExp[] = [/^gpt-4(-|$)/, /^gpt-3\.5/, /^gpt-35-turbo/];

/** Strips provider prefixes such as "openai/" (OpenRouter) and Azure-style spellings so families match. */
function normalizeModelId(modelId: string): string {
  const lower = modelId.trim().toLowerCase();
  const slash = lower.lastIndexOf('/');
  return slash >= 0 ? lower.slice(slash + 1) : lower;
}

/**
 * o200k_base for current OpenAI models, cl100k_base for gpt-4 / gpt-3.5-turbo, and o200k_base as the
 * estimate for every other model (its vocabulary is closest to modern BPE tokenizers; calibration
 * against reported usage corrects the rest).
 */
export function encodingForModel(modelId: string): EncodingChoice {
  const id = normalizeModelId(modelId);
  if (O200K_PATTERNS.some((pattern) => pattern.test(id))) return { encoding: 'o200k_base', exact: true };
  if (CL100K_PATTERNS.some((pattern) => pattern.test(id))) return { encoding: 'cl100k_base', exact: true };
  return { encoding: 'o200k_base', exact: false };
}

/** The vendor word a model id starts with ("claude", "llama", "qwen"), used to group non-OpenAI tokenizers. */
function modelFamily(id: string): string {
  return /^[a-z]+/.exec(id)?.[0] ?? id;
}

/**
 * True when token counts reported for model `a` are in the same units as model `b`'s: the same model,
 * two OpenAI models with the same encoding, or two non-OpenAI models of one vendor family (claude-opus
 * and claude-sonnet share a tokenizer; Claude and gpt-4o do not).
 */
export function sameTokenizer(a: string, b: string): boolean {
  const left = normalizeModelId(a);
  const right = normalizeModelId(b);
  if (left === right) return true;
  const choiceA = encodingForModel(left);
  const choiceB = encodingForModel(right);
  if (choiceA.exact || choiceB.exact) return choiceA.exact && choiceB.exact && choiceA.encoding === choiceB.encoding;
  return modelFamily(left) === modelFamily(right);
}
