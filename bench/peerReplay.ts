// Replays the recorded turns through a peer's policy (peerPolicies.ts): the same fitted steps, tools, system prompt and counter as ours.
import type { ChatMessage, ChatToolDefinition } from '../src/core/context/chatMessage';
import type { TokenCounter } from '../src/core/tokens/tokenCounter';
import type { ScenarioStep } from '../test/support/contextScenario';
import type { RecordedTurn } from './costWorkloads';
import type { ReplayOutcome } from './ourReplay';
import { replyTokens, traceStep, traceUser } from './ourReplay';
import { capOutput, type PeerPolicy } from './peerPolicies';
import type { PrefixCache } from './prefixCache';
import { callPath, retentionAfter, type HistoryItem } from './retention';
import { standInSummary, SUMMARY_TOKENS, TURN_PREFIX_STAND_IN } from './standInSummary';

interface Item {
  message: ChatMessage;
  /** Set on tool results: the tool and its full (capped) output, for pruning. */
  tool?: { name: string; output: string; pruned: boolean };
}

export interface PeerSetup {
  systemPrompt: string;
  tools: readonly ChatToolDefinition[];
  window: number;
  counter: TokenCounter;
  meter: PrefixCache;
}

/** pi's split-turn prompt, paraphrased (packages/coding-agent/src/core/compaction/compaction.ts). */
const TURN_PREFIX_PROMPT = 'This is the prefix of a turn too large to keep; the suffix (the recent work) is retained. Summarize the prefix so the suffix makes sense: the original request, early progress and decisions, and the context the suffix needs. Be concise.';

/** pi's serializeConversation: messages as text, tool results cut to 2,000 characters. */
function serialized(messages: readonly ChatMessage[]): string {
  const parts: string[] = [];
  for (const message of messages) {
    if (message.role === 'user') parts.push(`[User]: ${message.content}`);
    if (message.role === 'assistant') {
      if (message.content) parts.push(`[Assistant]: ${message.content}`);
      const calls = (message.tool_calls ?? []).map((call) => `${call.function.name}(${call.function.arguments})`);
      if (calls.length > 0) parts.push(`[Assistant tool calls]: ${calls.join('; ')}`);
    }
    if (message.role === 'tool') parts.push(`[Tool result]: ${message.content.length > 2000 ? `${message.content.slice(0, 2000)}\n\n[... ${message.content.length - 2000} more characters truncated]` : message.content}`);
  }
  return parts.join('\n\n');
}

class PeerSession {
  readonly outcome: ReplayOutcome = { calls: [], refusals: 0, compactions: 0, prunes: 0, errors: [], retention: [], trace: [], commands: [], snapshots: [] };
  /** The newest file reads, for a policy that reads files back after compacting: path → output. */
  private readonly reads = new Map<string, string>();
  private items: Item[] = [];
  /** The messages the last compaction left in front of the kept items. */
  private head: ChatMessage[] = [];
  private previousSummary: string | null = null;
  private readonly files = { read: new Set<string>(), modified: new Set<string>() };
  readonly history: HistoryItem[] = [];
  /** Prompt + output of the last accepted call: what the peer's own accounting reports. */
  lastTokens = 0;
  private nextId = 0;

  constructor(
    private readonly policy: PeerPolicy,
    private readonly setup: PeerSetup,
  ) {}

  context(): ChatMessage[] {
    return [{ role: 'system', content: this.setup.systemPrompt }, ...this.head, ...this.items.map((item) => item.message)];
  }

  private tokens(messages: readonly ChatMessage[], tools: readonly ChatToolDefinition[] = this.setup.tools): number {
    return this.setup.meter.promptTokens(messages, tools);
  }

  addUser(text: string): void {
    this.items.push({ message: { role: 'user', content: text } });
    this.history.push({ kind: 'request', text });
    traceUser(this.outcome, text);
  }

  /** Sends one step; a step that does not fit even after compacting is dropped, as an error. */
  send(step: ScenarioStep): void {
    const output = replyTokens(this.setup.counter, step.text, step.calls);
    let messages = this.context();
    if (this.tokens(messages) + output > this.setup.window) {
      this.outcome.refusals++;
      this.compact();
      messages = this.context();
      if (this.tokens(messages) + output > this.setup.window) {
        this.outcome.errors.push(`${this.policy.label}: a step did not fit the window even after compacting`);
        return;
      }
    }
    this.outcome.calls.push({ kind: 'main', messages, tools: this.setup.tools, outputTokens: output });
    this.lastTokens = this.tokens(messages) + output;
    traceStep(this.outcome, step.text, step.calls);
    if (step.calls.length === 0) {
      this.items.push({ message: { role: 'assistant', content: step.text } });
      return;
    }
    const ids = step.calls.map(() => `peer_${this.nextId++}`);
    const toolCalls = step.calls.map((call, i) => ({ id: ids[i] ?? '', type: 'function' as const, function: { name: call.name, arguments: call.args } }));
    this.items.push({ message: { role: 'assistant', content: step.text || null, tool_calls: toolCalls } });
    this.history.push({ kind: 'calls', calls: step.calls });
    step.calls.forEach((call, i) => {
      const content = capOutput(call.output, this.policy.cap(call.name));
      const path = call.name === 'read_file' ? callPath(call.name, call.args) : null;
      if (path !== null) {
        this.reads.delete(path);
        this.reads.set(path, content);
      }
      this.items.push({ message: { role: 'tool', tool_call_id: ids[i] ?? '', content }, tool: { name: call.name, output: content, pruned: false } });
    });
  }

  private summaryCall(messages: ChatMessage[], tools: readonly ChatToolDefinition[], text: string): void {
    this.outcome.calls.push({ kind: 'summary', messages, tools, outputTokens: this.setup.counter.countText(text) });
  }

  /**
   * pi's findCutPoint: walk back until keepRecentTokens are reached, then cut at the nearest user or assistant
   * message at or after that point; 0 (nothing to summarize) when the kept part is everything.
   */
  private cutIndex(keepTokens: number): number {
    let kept = 0;
    let cut = 0;
    for (let i = this.items.length - 1; i > 0; i--) {
      kept += this.tokens([this.items[i]?.message as ChatMessage], []);
      if (kept < keepTokens) continue;
      cut = Math.max(0, this.items.findIndex((item, j) => j >= i && item.message.role !== 'tool'));
      break;
    }
    // OpenCode's tail_turns: never more than the newest N user turns.
    if (this.policy.keepTurns !== undefined) {
      let turns = 0;
      for (let i = this.items.length - 1; i >= 0; i--) {
        if (this.items[i]?.message.role !== 'user') continue;
        if (++turns === this.policy.keepTurns) return Math.max(cut, i);
      }
    }
    return cut;
  }

  /** The stand-in's summary of what a summary request carried: at most 1,200 tokens, 80 % of the call's limit. */
  private summaryText(source: readonly ChatMessage[]): string {
    const size = Math.min(SUMMARY_TOKENS, Math.floor(this.policy.summaryMaxTokens(this.setup.window) * 0.8));
    return standInSummary(size, source.map((message) => `${message.content ?? ''}${message.role === 'assistant' ? (message.tool_calls ?? []).map((call) => `\n${call.function.arguments}`).join('') : ''}`).join('\n'));
  }

  compact(): void {
    const keep = this.policy.keepRecentTokens(this.setup.window);
    const cut = keep > 0 ? this.cutIndex(keep) : this.items.length;
    if (cut === 0) return;
    // A cut inside a turn (pi only) summarizes the turn's head separately, when the turn starts after the last compaction.
    const turnStart = this.policy.splitTurnSummary === true && this.items[cut]?.message.role !== 'user' ? this.items.slice(0, cut).findLastIndex((item) => item.message.role === 'user') : -1;
    const split = turnStart >= 0 ? turnStart : cut;
    const summarized = this.items.slice(0, split).map((item) => item.message);
    const prefix = this.items.slice(split, cut).map((item) => item.message);
    const previousHead = this.head;
    let summary = this.summaryText([...previousHead, ...summarized]);
    if (this.policy.key === 'pi') {
      const previous = this.previousSummary ? `<previous-summary>\n${this.previousSummary}\n</previous-summary>\n\n` : '';
      // pi writes "No prior history." instead of a summary call when only the split turn's head is summarized.
      if (summarized.length > 0) this.summaryCall([{ role: 'system', content: this.policy.summarySystem }, { role: 'user', content: `<conversation>\n${serialized(summarized)}\n</conversation>\n\n${previous}${this.policy.summaryPrompt}` }], [], summary);
      else summary = 'No prior history.';
      if (prefix.length > 0) {
        this.summaryCall([...prefix, { role: 'user', content: TURN_PREFIX_PROMPT }], [], TURN_PREFIX_STAND_IN);
        summary += `\n\n---\n\n**Turn Context (split turn):**\n\n${TURN_PREFIX_STAND_IN}`;
      }
    } else {
      const conversation = [...this.head, ...summarized, { role: 'user' as const, content: this.policy.summaryPrompt }];
      if (this.policy.summaryReusesPrefix) this.summaryCall([{ role: 'system', content: this.setup.systemPrompt }, ...conversation], this.setup.tools, summary);
      else this.summaryCall([{ role: 'system', content: this.policy.summarySystem }, ...conversation], [], summary);
    }
    if (this.policy.fileLists) summary += this.fileLists([...summarized, ...prefix]);
    this.previousSummary = summary;
    this.head = [...this.policy.head(summary), ...this.rereads()];
    this.items = this.items.slice(cut);
    this.outcome.compactions++;
    const next = this.context();
    this.outcome.retention.push(retentionAfter(this.history, next));
    const text = (messages: readonly ChatMessage[]): string => messages.map((message) => `${message.content ?? ''}\n${message.role === 'assistant' ? (message.tool_calls ?? []).map((call) => call.function.arguments).join('\n') : ''}`).join('\n');
    this.outcome.snapshots.push({
      position: this.outcome.trace.length,
      summaryText: text(this.policy.head(summary)),
      keptText: `${JSON.stringify(this.setup.tools)}\n${text([next[0] as ChatMessage, ...this.rereads(), ...this.items.map((item) => item.message)])}`,
      contextTokens: this.tokens(next),
    });
    this.lastTokens = this.tokens(next);
  }

  /** The files a policy reads back after compacting (newest first, each cut to its token limit, within the budget). */
  private rereads(): ChatMessage[] {
    const rule = this.policy.rereadFiles;
    if (!rule) return [];
    const messages: ChatMessage[] = [];
    let total = 0;
    for (const [path, output] of [...this.reads].reverse().slice(0, rule.count)) {
      const content = output.length > rule.maxTokens * 4 ? `${output.slice(0, rule.maxTokens * 4)}\n[truncated]` : output;
      const tokens = this.tokens([{ role: 'user', content }], []);
      if (total + tokens > Math.min(rule.budget, this.setup.window * rule.windowShare)) break;
      total += tokens;
      messages.push({ role: 'user', content: `Called the Read tool with the following input: {"file_path":"${path}"}\nResult of calling the Read tool:\n${content}` });
    }
    return messages;
  }

  /** pi's <read-files>/<modified-files>, cumulative across compactions (a file both read and modified is listed as modified). */
  private fileLists(messages: readonly ChatMessage[]): string {
    for (const message of messages) {
      if (message.role !== 'assistant') continue;
      for (const call of message.tool_calls ?? []) {
        const path = callPath(call.function.name, call.function.arguments);
        if (path === null) continue;
        if (call.function.name === 'read_file') this.files.read.add(path);
        else this.files.modified.add(path);
      }
    }
    const read = [...this.files.read].filter((file) => !this.files.modified.has(file)).sort();
    const modified = [...this.files.modified].sort();
    const sections = [...(read.length > 0 ? [`<read-files>\n${read.join('\n')}\n</read-files>`] : []), ...(modified.length > 0 ? [`<modified-files>\n${modified.join('\n')}\n</modified-files>`] : [])];
    return sections.length > 0 ? `\n\n${sections.join('\n\n')}` : '';
  }

  /** OpenCode's prune (compaction.ts prune): newest first, outside the last two turns, past 40k of output; only above 20k. */
  prune(): void {
    const rule = this.policy.prune;
    if (!rule) return;
    let turns = 0;
    let total = 0;
    let freed = 0;
    const chosen: Item[] = [];
    for (let i = this.items.length - 1; i >= 0; i--) {
      const item = this.items[i] as Item;
      if (item.message.role === 'user') turns++;
      if (turns < rule.protectTurns || !item.tool) continue;
      if (item.tool.pruned) break;
      const estimate = Math.round(item.tool.output.length / 4);
      total += estimate;
      if (total <= rule.protect) continue;
      freed += estimate;
      chosen.push(item);
    }
    if (freed <= rule.minimum) return;
    for (const item of chosen) {
      if (item.tool) item.tool.pruned = true;
      if (item.message.role === 'tool') item.message = { ...item.message, content: rule.placeholder };
    }
    this.outcome.prunes++;
  }
}

/** Replays the fitted recorded turns under one peer policy: a closing reply only where the recording has one. */
export function replayPeer(policy: PeerPolicy, turns: readonly RecordedTurn[], setup: PeerSetup): ReplayOutcome {
  const session = new PeerSession(policy, setup);
  const threshold = policy.threshold(setup.window);
  for (const turn of turns) {
    session.addUser(turn.user);
    for (const step of [...turn.steps, ...(turn.finalCall ? [{ text: turn.final, calls: [] }] : [])]) {
      if (policy.trigger === 'beforeCall' && session.lastTokens > threshold) session.compact();
      session.send(step);
    }
    if (policy.trigger === 'afterTurn' && session.lastTokens > threshold) session.compact();
    session.prune();
  }
  return session.outcome;
}
