// The peers' context policies as data, from their current code (cited by repository, file and line): when they compact, what they keep, prune and send.
import type { ChatMessage } from '../src/core/context/chatMessage';
import { CLAUDE_CODE_SUMMARY_TOKENS, OPENCODE_SUMMARY_TOKENS, PI_SUMMARY_TOKENS } from './summaryLengths';

/** How a peer cuts a long tool output before the model sees it. */
export interface OutputCap {
  maxChars: number;
  maxLines: number;
  keep: 'head' | 'tail' | 'middle';
}

export type Trigger =
  /** After a user request completes, on the last call's prompt + output (pi: agent_end). */
  | 'afterTurn'
  /**
   * Before every model call, on the previous call's prompt + output (Claude Code's autocompact check; OpenCode
   * checks each finished step's usage and runs the compaction before the next call, which is the same).
   */
  | 'beforeCall';

export interface PeerPolicy {
  key: 'pi' | 'opencode' | 'opencodeClassic' | 'claudeCodeLow' | 'claudeCodeHigh';
  label: string;
  trigger: Trigger;
  /** Compact when the context passes this many tokens. */
  threshold(window: number): number;
  /** Newest tokens kept verbatim after a compaction at a window (0: the summary replaces everything). */
  keepRecentTokens(window: number): number;
  /** How the summary request carries the conversation: as messages, or serialized as text (results cut to 2,000 chars). */
  request: 'messages' | 'piSerialized' | 'opencodeSerialized';
  /** How the kept tail is chosen: pi's walk back to a user or assistant message, or OpenCode's whole turns (then a split turn). */
  tail: 'pi' | 'opencodeTurns' | 'none';
  /** A cut inside a turn summarizes the turn's head in a call of its own (pi). */
  splitTurnSummary?: boolean;
  /** Files read back into the context after a compaction: the newest `count` read, each cut to `maxTokens` (Claude Code). */
  rereadFiles?: { count: number; maxTokens: number; budget: number; windowShare: number };
  /**
   * The output its main calls ask for (max_tokens): vLLM, OpenAI and Anthropic refuse a prompt whose tokens plus this
   * exceed the window, so every call is fit-tested on prompt + this, as ours is.
   */
  maxOutputTokens(window: number): number;
  /** Most tokens the summary call may write (its max_tokens; fit-tested the same way). */
  summaryMaxTokens(window: number): number;
  /** What its summary prompt produces, in tokens, as measured on summaries written under it (summaryLengths.ts). */
  summaryLength: number;
  /** OpenCode's prune after every request: protect the newest outputs, prune only past the minimum (chars/4, its own estimate). */
  prune?: { protect: number; minimum: number; protectTurns: number; placeholder: string };
  /** A code-written list of files read and modified appended to every summary (pi's <read-files>/<modified-files>). */
  fileLists: boolean;
  /** The summary request shares the main calls' system prompt and tools, so its prefix can be served from the cache. */
  summaryReusesPrefix: boolean;
  /** The summary request's own system prompt when it does not reuse the main one. */
  summarySystem: string;
  /** The instruction the summary request ends with. */
  summaryPrompt: string;
  /** The messages that carry the summary into the next context, before whatever is kept verbatim. */
  head(summary: string): ChatMessage[];
  cap(toolName: string): OutputCap;
}

/** pi and OpenCode cap a tool output at 2,000 lines or 50 KB (pi keeps the tail of bash output, the head of reads). */
const FIFTY_KB = 50 * 1024;

/**
 * The output limit of the model the recorded sessions ran on: claude-sonnet-4-5 and claude-opus-4-5 (the fixtures'
 * `model` fields), both 200,000 tokens of context and 64,000 of output (Anthropic's models overview; models.dev
 * lists the same `limit`). At the smaller windows, which no such model has, the limit is cut to a quarter of the
 * window (8,192 at 32k; 32,000 at 128k is above every cap that applies anyway).
 */
export const MODEL_MAX_OUTPUT = 64_000;

export function modelMaxOutput(window: number): number {
  return Math.min(MODEL_MAX_OUTPUT, Math.floor(window / 4));
}

/** A copy of a policy that never prunes. */
function withoutPrune(policy: PeerPolicy): PeerPolicy {
  const copy = { ...policy };
  delete copy.prune;
  return copy;
}

/** OpenCode's OUTPUT_TOKEN_MAX: the most output it asks for and reserves (ProviderTransform.maxOutputTokens). */
const OPENCODE_OUTPUT_MAX = 32_000;

/**
 * Claude Code's max_tokens for a main call: CLAUDE_CODE_MAX_OUTPUT_TOKENS, default 32,000 (its env-vars page as
 * quoted in anthropics/claude-code#35133; a 102,400-token server refusing "70772 in the messages, 32000 in the
 * completion" in NanmiCoder/cc-haha#29 shows it is sent as max_tokens).
 */
const CLAUDE_CODE_OUTPUT_MAX = 32_000;

/**
 * pi, badlogic/pi-mono at 83378aad (2026-03-15), packages/coding-agent/src/core/:
 * - compaction/compaction.ts:114-117 DEFAULT_COMPACTION_SETTINGS reserveTokens 16,384, keepRecentTokens 20,000;
 *   :212-214 shouldCompact: contextTokens > contextWindow − reserveTokens; :376-401 findCutPoint walks back until
 *   keepRecentTokens (chars/4) and cuts at a user or assistant message; :529 the summary's maxTokens = 0.8 × reserve;
 *   :787 the split turn's head gets its own summary at 0.5 × reserve.
 * - agent-session.ts:1742-1816 _checkCompaction after each request (agent_end, :499-509) and before the next prompt
 *   (:950): overflow error → compact and retry; usage (input + output + cache) over the threshold → compact.
 * - compaction/utils.ts:89 tool results cut to 2,000 characters in the summary request; <read-files>/<modified-files> by code.
 * - tools/truncate.ts:11-12 tool output capped at 2,000 lines / 50 KB.
 * - packages/ai/src/providers/simple-options.ts:6 every main call asks for min(model output, 32,000) tokens.
 */
export const PI: PeerPolicy = {
  key: 'pi',
  label: 'pi',
  trigger: 'afterTurn',
  threshold: (window) => window - 16_384,
  keepRecentTokens: () => 20_000,
  splitTurnSummary: true,
  request: 'piSerialized',
  tail: 'pi',
  maxOutputTokens: (window) => Math.min(modelMaxOutput(window), 32_000),
  summaryMaxTokens: () => Math.floor(0.8 * 16_384),
  summaryLength: PI_SUMMARY_TOKENS,
  fileLists: true,
  summaryReusesPrefix: false,
  summarySystem:
    'You are a context summarization assistant. Read the conversation between a user and an AI coding assistant and write a structured summary in the exact format given. Do not continue the conversation and do not answer questions in it; output only the summary.',
  summaryPrompt: [
    'The messages above are a conversation to summarize. Write a structured context checkpoint summary that another model will use to continue the work, in this exact format:',
    '## Goal\n[What the user is trying to accomplish; several items if the session covers several tasks.]',
    '## Constraints & Preferences\n- [Constraints, preferences and requirements the user stated, or "(none)"]',
    '## Progress\n### Done\n- [x] [Completed tasks and changes]\n### In Progress\n- [ ] [Current work]\n### Blocked\n- [Issues preventing progress, if any]',
    '## Key Decisions\n- **[Decision]**: [Brief rationale]',
    '## Next Steps\n1. [Ordered list of what should happen next]',
    '## Critical Context\n- [Data, examples or references needed to continue, or "(none)"]',
    'Keep each section concise. Preserve exact file paths, function names and error messages.',
  ].join('\n\n'),
  head: (summary) => [{ role: 'user', content: `The conversation history before this point was compacted into the following summary:\n\n<summary>\n${summary}\n</summary>` }],
  cap: (toolName) => ({ maxChars: FIFTY_KB, maxLines: 2000, keep: toolName === 'run_command' ? 'tail' : 'head' }),
};

/**
 * OpenCode as it was until its tail and opt-in pruning (labelled "classic" in every table): sst/opencode
 * packages/opencode/src/session/compaction.ts (the `prune` walk, PRUNE_MINIMUM 20,000 / PRUNE_PROTECT 40,000;
 * anomalyco/opencode at 001aa6cc lines 88-90 and 146-190 still have them), overflow at input + cache read +
 * output > window − min(model output, 32,000); the compaction summarizes the whole history since the last
 * summary with the tool-less compaction agent and continues with "Continue if you have next steps".
 */
export const OPENCODE_CLASSIC: PeerPolicy = {
  key: 'opencodeClassic',
  label: 'OpenCode (classic)',
  trigger: 'beforeCall',
  threshold: (window) => window - openCodeOutput(window),
  keepRecentTokens: () => 0,
  request: 'messages',
  tail: 'none',
  maxOutputTokens: (window) => openCodeOutput(window),
  summaryMaxTokens: (window) => openCodeOutput(window),
  summaryLength: OPENCODE_SUMMARY_TOKENS,
  prune: { protect: 40_000, minimum: 20_000, protectTurns: 2, placeholder: '[Old tool result content cleared]' },
  fileLists: false,
  summaryReusesPrefix: false,
  summarySystem: [
    'You are a helpful AI assistant tasked with summarizing conversations.',
    'When asked to summarize, provide a detailed but concise summary of the conversation. Focus on information that would be helpful for continuing the conversation, including:',
    '- What was done\n- What is currently being worked on\n- Which files are being modified\n- What needs to be done next\n- Key user requests, constraints, or preferences that should persist\n- Important technical decisions and why they were made',
    'Your summary should be comprehensive enough to provide context but concise enough to be quickly understood.',
  ].join('\n\n'),
  summaryPrompt:
    "Provide a detailed prompt for continuing our conversation above. Focus on information that would be helpful for continuing the conversation, including what we did, what we're doing, which files we're working on, and what we're going to do next considering new session will not have access to our conversation.",
  head: (summary) => [
    { role: 'user', content: 'What did we do so far?' },
    { role: 'assistant', content: summary },
    { role: 'user', content: 'Continue if you have next steps' },
  ],
  cap: () => ({ maxChars: FIFTY_KB, maxLines: 2000, keep: 'head' }),
};

/**
 * Claude Code 2.x (its autocompact threshold as deobfuscated in anthropics/claude-code#31806: effective window −
 * 13,000, the effective window being the window − min(max output, 20,000): 83.5 % of 200k; older docs and the
 * seed's survey said ~95 %, which leaves no room for the compaction call itself): before each call, compact when
 * the context passed it; the whole conversation is summarized (the request is the conversation itself plus the
 * compact instruction, so it reuses the cached prefix) and nothing but the summary is kept. Bash output is
 * middle-truncated at 30,000 characters (BASH_MAX_OUTPUT_LENGTH), Read returns at most 2,000 lines. Its rules are
 * not public, so it runs as a band: this cheap end keeps only the summary and assumes its summary request is
 * served from the cache; CLAUDE_CODE_HIGH below is the dear end.
 */
export const CLAUDE_CODE_LOW: PeerPolicy = {
  key: 'claudeCodeLow',
  label: 'Claude Code (cheap end)',
  trigger: 'beforeCall',
  threshold: (window) => window - Math.min(modelMaxOutput(window), 20_000) - 13_000,
  keepRecentTokens: () => 0,
  request: 'messages',
  tail: 'none',
  maxOutputTokens: (window) => Math.min(modelMaxOutput(window), CLAUDE_CODE_OUTPUT_MAX),
  summaryMaxTokens: (window) => Math.min(modelMaxOutput(window), 20_000),
  summaryLength: CLAUDE_CODE_SUMMARY_TOKENS,
  fileLists: false,
  summaryReusesPrefix: true,
  summarySystem: '',
  summaryPrompt: [
    'Your task is to create a detailed summary of the conversation so far, paying close attention to the user\'s explicit requests and your previous actions.',
    'This summary should be thorough in capturing technical details, code patterns, and architectural decisions that would be essential for continuing development work without losing context.',
    'Before the summary, analyze each message and section of the conversation chronologically and identify the user\'s explicit requests and intents, your approach, key decisions, technical concepts and code patterns, specific details such as file names, full code snippets, function signatures and file edits, errors you ran into and how you fixed them, and user feedback.',
    'Your summary should include the following sections:\n1. Primary Request and Intent\n2. Key Technical Concepts\n3. Files and Code Sections (with full code snippets where applicable and why each file matters)\n4. Errors and fixes\n5. Problem Solving\n6. All user messages that are not tool results\n7. Pending Tasks\n8. Current Work (precisely what was being worked on immediately before this summary request)\n9. Optional Next Step (directly in line with the most recent explicit request, with verbatim quotes of where you left off)',
    'Wrap your analysis in <analysis> tags and the summary in <summary> tags.',
  ].join('\n\n'),
  head: (summary) => [
    {
      role: 'user',
      content: `This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\n${summary}\nPlease continue the conversation from where we left it off without asking the user any further questions. Continue with the last task that you were asked to work on.`,
    },
  ],
  cap: (toolName) => (toolName === 'read_file' ? { maxChars: Number.MAX_SAFE_INTEGER, maxLines: 2000, keep: 'head' } : { maxChars: 30_000, maxLines: Number.MAX_SAFE_INTEGER, keep: 'middle' }),
};

/** OpenCode's max output: ProviderTransform.maxOutputTokens = min(model.limit.output, OUTPUT_TOKEN_MAX 32,000). */
const openCodeOutput = (window: number): number => Math.min(modelMaxOutput(window), OPENCODE_OUTPUT_MAX);

/**
 * OpenCode's usable budget as its newest overflow.ts computes it (sst/opencode at 31e22f65,
 * packages/opencode/src/session/overflow.ts:10-20): reserved = min(COMPACTION_BUFFER 20,000, max output); a model
 * with no input limit (Claude models on models.dev state none) gets context − max output − reserved. 32k: 16,000.
 */
export const openCodeUsable = (window: number): number => Math.max(0, window - openCodeOutput(window) - Math.min(20_000, openCodeOutput(window)));

/**
 * OpenCode today, sst/opencode (anomalyco/opencode is the same project) packages/opencode/src/session/:
 * - overflow.ts at 31e22f65 :10-20 usable (above); :22-34 overflow when input + output + cache read + cache write
 *   ≥ usable, checked after each step. Older snapshots computed context − max output (anomalyco/opencode at
 *   08f74b9b :8-18) or context − reserved (at 0d51724f): the newest subtracts both.
 * - provider/transform.ts `maxOutputTokens`: every call asks for min(model output, 32,000).
 * - compaction.ts (sst/opencode at 3df4a255): :116-121 preserveRecentBudget = preserve_recent_tokens, else 25 % of
 *   the usable budget clamped to 2,000–15,000 (MIN/MAX_PRESERVE_RECENT_TOKENS, :33-34); :224-234 select: no turn
 *   limit unless `tail_turns` is set (`recent = limit === undefined ? all : all.slice(-limit)`), whole turns from the
 *   newest while they fit (chars/4 of the messages as JSON), then the first turn that does not fit is split at the
 *   earliest message whose rest fits (splitTurn, :141-164); nothing fits or the tail starts the session: no tail.
 * - compaction.ts :52-53 and :55-86: the head is serialized as text, `[User]:`, `[Assistant]:`, `[Assistant tool
 *   call]: tool(input)`, `[Tool result]:` cut to 2,000 characters (TOOL_OUTPUT_MAX_CHARS, :31) + "[truncated]",
 *   pruned results as "[Old tool result content cleared]"; the request is ONE user message (buildPrompt with the
 *   previous summary and that text), `tools: {}`, `system: []`.
 * - prune is opt-in (`if (!cfg.compaction?.prune) return`), so the current row does not prune; the classic row does.
 */
export const OPENCODE: PeerPolicy = {
  ...withoutPrune(OPENCODE_CLASSIC),
  key: 'opencode',
  label: 'OpenCode',
  threshold: openCodeUsable,
  keepRecentTokens: (window) => Math.min(15_000, Math.max(2_000, Math.floor(openCodeUsable(window) * 0.25))),
  request: 'opencodeSerialized',
  tail: 'opencodeTurns',
  maxOutputTokens: openCodeOutput,
  summaryMaxTokens: openCodeOutput,
  summarySystem: '',
  summaryPrompt: [
    'Provide a detailed prompt for continuing our conversation above.',
    "Focus on information that would be helpful for continuing the conversation, including what we did, what we're doing, which files we're working on, and what we're going to do next.",
    'The summary that you construct will be used so that another agent can read it and continue the work.',
    'Do not call any tools. Respond only with the summary text.',
    'When constructing the summary, try to stick to this template:\n---\n## Goal\n\n[What goal(s) is the user trying to accomplish?]\n\n## Instructions\n\n- [What important instructions did the user give you that are relevant]\n\n## Discoveries\n\n[What notable things were learned during this conversation]\n\n## Accomplished\n\n[What work has been completed, is in progress, and is left?]\n\n## Relevant files / directories\n\n[A structured list of relevant files that have been read, edited, or created]\n---',
  ].join('\n'),
  head: (summary) => [
    { role: 'user', content: 'What did we do so far?' },
    { role: 'assistant', content: summary },
  ],
};

/**
 * Claude Code's other end: after the summary it reads back the files read most recently (up to 5, each up to
 * 5,000 tokens, 50,000 in all, as its deobfuscated compact code is reported to do; the same constants appear
 * in OpenCode code that copies it, anomalyco/opencode at 001aa6cc lines 30-32), and its summary request
 * runs under its own system prompt, so nothing of it is served from the cache. Below 200k the read-back budget
 * is cut to a quarter of the window (50,000 tokens of files do not fit a 32k window).
 */
export const CLAUDE_CODE_HIGH: PeerPolicy = {
  ...CLAUDE_CODE_LOW,
  key: 'claudeCodeHigh',
  label: 'Claude Code (dear end)',
  rereadFiles: { count: 5, maxTokens: 5_000, budget: 50_000, windowShare: 0.25 },
  summaryReusesPrefix: false,
  summarySystem: 'You are a helpful AI assistant tasked with summarizing conversations.',
};

/** Every peer replayed: the current ones, the classic OpenCode (labelled), and Claude Code's plausible band. */
export const PEER_POLICIES: readonly PeerPolicy[] = [PI, OPENCODE, OPENCODE_CLASSIC, CLAUDE_CODE_LOW, CLAUDE_CODE_HIGH];

/** Applies a peer's output cap: lines first, then characters, keeping the head, the tail or both ends. */
export function capOutput(text: string, cap: OutputCap): string {
  let out = text;
  const lines = out.split('\n');
  if (lines.length > cap.maxLines) {
    const kept = cap.keep === 'tail' ? lines.slice(-cap.maxLines) : cap.keep === 'head' ? lines.slice(0, cap.maxLines) : [...lines.slice(0, cap.maxLines / 2), ...lines.slice(-cap.maxLines / 2)];
    out = `${kept.join('\n')}\n[${lines.length - cap.maxLines} lines truncated]`;
  }
  if (out.length > cap.maxChars) {
    const half = Math.floor(cap.maxChars / 2);
    const kept = cap.keep === 'tail' ? out.slice(-cap.maxChars) : cap.keep === 'head' ? out.slice(0, cap.maxChars) : `${out.slice(0, half)}\n…\n${out.slice(-half)}`;
    out = `${kept}\n[${out.length - cap.maxChars} characters truncated]`;
  }
  return out;
}
