// Replays the replies our run got through a peer's policy (peerPolicies.ts): the same turns, tools, system prompt and counter.
import type { ChatMessage, ChatToolDefinition } from '../src/core/context/chatMessage';
import type { TokenCounter } from '../src/core/tokens/tokenCounter';
import type { ScenarioStep, ScenarioTurn } from '../test/support/contextScenario';
import type { ReplayOutcome } from './ourReplay';
import { replyTokens } from './ourReplay';
import { capOutput, type PeerPolicy } from './peerPolicies';
import type { PrefixCache } from './prefixCache';
import { callPath, retentionAfter, type HistoryItem } from './retention';
import { standInSummary, TURN_PREFIX_STAND_IN } from './standInSummary';

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
  readonly outcome: ReplayOutcome = { calls: [], refusals: 0, compactions: 0, prunes: 0, errors: [], retention: [] };
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
  private cutIndex(): number {
    let kept = 0;
    for (let i = this.items.length - 1; i > 0; i--) {
      kept += this.tokens([this.items[i]?.message as ChatMessage], []);
      if (kept < this.policy.keepRecentTokens) continue;
      const cut = this.items.findIndex((item, j) => j >= i && item.message.role !== 'tool');
      return cut < 0 ? 0 : cut;
    }
    return 0;
  }

  compact(): void {
    const cut = this.policy.keepRecentTokens > 0 ? this.cutIndex() : this.items.length;
    if (cut === 0) return;
    // A cut inside a turn (pi only) summarizes the turn's head separately, when the turn starts after the last compaction.
    const turnStart = this.policy.keepRecentTokens > 0 && this.items[cut]?.message.role !== 'user' ? this.items.slice(0, cut).findLastIndex((item) => item.message.role === 'user') : -1;
    const split = turnStart >= 0 ? turnStart : cut;
    const summarized = this.items.slice(0, split).map((item) => item.message);
    const prefix = this.items.slice(split, cut).map((item) => item.message);
    let summary = standInSummary();
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
    this.head = this.policy.head(summary);
    this.items = this.items.slice(cut);
    this.outcome.compactions++;
    this.outcome.retention.push(retentionAfter(this.history, this.context()));
    this.lastTokens = this.tokens(this.context());
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

/** Replays the fitted turns of our run under one peer policy. */
export function replayPeer(policy: PeerPolicy, turns: readonly ScenarioTurn[], setup: PeerSetup): ReplayOutcome {
  const session = new PeerSession(policy, setup);
  const threshold = policy.threshold(setup.window);
  for (const turn of turns) {
    session.addUser(turn.user);
    for (const step of [...turn.steps, { text: turn.final, calls: [] }]) {
      if (policy.trigger === 'beforeCall' && session.lastTokens > threshold) session.compact();
      session.send(step);
    }
    if (policy.trigger === 'afterTurn' && session.lastTokens > threshold) session.compact();
    session.prune();
  }
  return session.outcome;
}
