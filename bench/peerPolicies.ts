// The peers' context policies as data: when they compact, what they keep and prune, how they cap tool output, what the summary call sends.
import { thresholdsFor } from '../src/core/budget/thresholds';
import type { ChatMessage } from '../src/core/context/chatMessage';
import { defaultSettings } from '../src/core/settings/settings';

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
  key: 'pi' | 'opencode' | 'claudeCode';
  label: string;
  trigger: Trigger;
  /** Compact when the context passes this many tokens. */
  threshold(window: number): number;
  /** Newest tokens kept verbatim after a compaction (0: the summary replaces everything). */
  keepRecentTokens: number;
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
 * The model's output limit, which OpenCode and Claude Code reserve room for: taken as the room our meter reserves
 * at that window (8.2 % of it, 1,024–16,384), so a 32k model is not assumed to write 16k-token replies.
 */
export function modelMaxOutput(window: number): number {
  return thresholdsFor(window, defaultSettings()).outputReserve;
}

/**
 * pi (badlogic/pi-mono, packages/coding-agent/src/core/compaction/compaction.ts and agent-session.ts):
 * after each request (agent_end) compact when the last usage (input + output + cache) exceeds window − 16,384;
 * an overflow error compacts and retries. Keeps the newest 20,000 tokens (cut at a user or assistant message,
 * a split turn's head summarized separately); no pruning; appends <read-files>/<modified-files> by code (utils.ts).
 */
export const PI: PeerPolicy = {
  key: 'pi',
  label: 'pi',
  trigger: 'afterTurn',
  threshold: (window) => window - 16_384,
  keepRecentTokens: 20_000,
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
 * OpenCode (sst/opencode, packages/opencode/src/session/compaction.ts, prompt.ts, overflow.ts): after each step,
 * overflow when input + cache read + output > window − min(model output, 32,000); the compaction summarizes
 * the whole history since the last summary with the tool-less compaction agent and continues with "Continue if
 * you have next steps". After each request it prunes: outputs older than the newest 40,000 tokens of output
 * (chars/4), outside the last two user turns, are cleared when more than 20,000 tokens would go.
 */
export const OPENCODE: PeerPolicy = {
  key: 'opencode',
  label: 'OpenCode',
  trigger: 'beforeCall',
  threshold: (window) => window - Math.min(modelMaxOutput(window), 32_000),
  keepRecentTokens: 0,
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
 * middle-truncated at 30,000 characters (BASH_MAX_OUTPUT_LENGTH), Read returns at most 2,000 lines.
 */
export const CLAUDE_CODE: PeerPolicy = {
  key: 'claudeCode',
  label: 'Claude Code',
  trigger: 'beforeCall',
  threshold: (window) => window - Math.min(modelMaxOutput(window), 20_000) - 13_000,
  keepRecentTokens: 0,
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

export const PEER_POLICIES: readonly PeerPolicy[] = [PI, OPENCODE, CLAUDE_CODE];

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
