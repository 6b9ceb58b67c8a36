// Replays the recorded turns through a peer's policy (peerPolicies.ts): the same fitted steps, tools, system prompt and counter as ours.
import type { ChatMessage, ChatToolDefinition } from '../src/core/context/chatMessage';
import type { TokenCounter } from '../src/core/tokens/tokenCounter';
import type { ScenarioStep } from '../test/support/contextScenario';
import type { RecordedTurn } from './costWorkloads';
import type { ReplayOutcome } from './ourReplay';
import { replyTokens, traceDropped, traceStep, traceUser } from './ourReplay';
import { capOutput, type PeerPolicy } from './peerPolicies';
import type { PrefixCache } from './prefixCache';
import { callPath, retentionAfter, type HistoryItem } from './retention';
import { standInSummary, turnPrefixStandIn } from './standInSummary';
import { summaryLength } from './summaryLengths';

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

/** pi's TURN_PREFIX_SUMMARIZATION_PROMPT, paraphrased (packages/coding-agent/src/core/compaction/compaction.ts:687). */
const TURN_PREFIX_PROMPT = 'This is the PREFIX of a turn that was too large to keep. The SUFFIX (recent work) is retained. Summarize the prefix so the suffix makes sense: the original request, early progress and decisions, and the context the suffix needs. Be concise.';

/** The first 2,000 characters of a tool result, as both pi and OpenCode put it in a summary request. */
const SUMMARY_RESULT_CHARS = 2000;

/** pi's serializeConversation (compaction/utils.ts:89-160): messages as text, tool results cut to 2,000 characters. */
export function piSerialized(messages: readonly ChatMessage[]): string {
  const parts: string[] = [];
  for (const message of messages) {
    if (message.role === 'user') parts.push(`[User]: ${message.content}`);
    if (message.role === 'assistant') {
      if (message.content) parts.push(`[Assistant]: ${message.content}`);
      const calls = (message.tool_calls ?? []).map((call) => `${call.function.name}(${call.function.arguments})`);
      if (calls.length > 0) parts.push(`[Assistant tool calls]: ${calls.join('; ')}`);
    }
    if (message.role === 'tool') parts.push(`[Tool result]: ${message.content.length > SUMMARY_RESULT_CHARS ? `${message.content.slice(0, SUMMARY_RESULT_CHARS)}\n\n[... ${message.content.length - SUMMARY_RESULT_CHARS} more characters truncated]` : message.content}`);
  }
  return parts.join('\n\n');
}

/** OpenCode's serialize (compaction.ts:55-86 at 3df4a255): one block per message, results cut to 2,000 characters + "[truncated]". */
export function openCodeSerialized(messages: readonly ChatMessage[]): string {
  const blocks: string[] = [];
  for (const message of messages) {
    if (message.role === 'user') blocks.push(`[User]: ${message.content}`);
    else if (message.role === 'assistant') {
      const lines = message.content ? [`[Assistant]: ${message.content}`] : [];
      for (const call of message.tool_calls ?? []) lines.push(`[Assistant tool call]: ${call.function.name}(${call.function.arguments})`);
      blocks.push(lines.join('\n'));
    } else if (message.role === 'tool') blocks.push(`[Tool result]: ${message.content.length > SUMMARY_RESULT_CHARS ? `${message.content.slice(0, SUMMARY_RESULT_CHARS)}\n[truncated]` : message.content}`);
  }
  return blocks.filter(Boolean).join('\n\n');
}

/** OpenCode's chars/4 estimate of messages as JSON (Token.estimate(JSON.stringify(msgs))). */
const charsOver4 = (messages: readonly ChatMessage[]): number => Math.round(JSON.stringify(messages).length / 4);

class PeerSession {
  readonly outcome: ReplayOutcome = { calls: [], refusals: 0, compactions: 0, prunes: 0, errors: [], retention: [], trace: [], commands: [], snapshots: [], dropped: [] };
  /** pi: items before this index were kept by the last compaction; the next one neither summarizes nor keeps them. */
  private boundary = 0;
  /** The recorded time of the current call (seconds since the session started). */
  now = 0;
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

  /**
   * Whether the server accepts a request: its prompt plus the output it asks for (max_tokens) within the window, as
   * vLLM, OpenAI and Anthropic check (ours is fit-tested the same way in ourReplay).
   */
  private fits(messages: readonly ChatMessage[], tools: readonly ChatToolDefinition[], maxOutput: number): boolean {
    return this.tokens(messages, tools) + maxOutput <= this.setup.window;
  }

  /** Sends one step; a step the server refuses even after compacting is dropped (an error, and a loss in both measures). */
  send(step: ScenarioStep): void {
    const output = replyTokens(this.setup.counter, step.text, step.calls);
    const asked = Math.max(output, this.policy.maxOutputTokens(this.setup.window));
    let messages = this.context();
    if (!this.fits(messages, this.setup.tools, asked)) {
      this.outcome.refusals++;
      this.compact();
      messages = this.context();
      if (!this.fits(messages, this.setup.tools, asked)) {
        this.outcome.errors.push(`${this.policy.label}: a step did not fit the window even after compacting`);
        traceDropped(this.outcome, step.text, step.calls);
        return;
      }
    }
    const position = traceStep(this.outcome, step.text, step.calls);
    this.outcome.calls.push({ kind: 'main', messages, tools: this.setup.tools, outputTokens: output, at: this.now, position });
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
      const path = call.name === 'read_file' ? callPath(call.name, call.args) : null;
      if (path !== null) {
        this.reads.delete(path);
        this.reads.set(path, content);
      }
      this.items.push({ message: { role: 'tool', tool_call_id: ids[i] ?? '', content }, tool: { name: call.name, output: content, pruned: false } });
    });
  }

  /**
   * Sends a summary request; the stand-in writes from exactly what it carries (serialization and caps included), at the
   * length the policy's prompt produces within the call's cap. A request the server refuses (prompt + its max_tokens
   * over the window) returns null: the compaction fails and the context stays as it was.
   */
  private summaryCall(messages: ChatMessage[], tools: readonly ChatToolDefinition[], limit: number, write: (source: string) => string = (source) => standInSummary(summaryLength(this.policy.summaryLength, limit), source, (text) => this.setup.counter.countText(text))): string | null {
    if (!this.fits(messages, tools, limit)) {
      this.outcome.refusals++;
      return null;
    }
    const source = messages
      .slice(1)
      .map((message) => `${message.content ?? ''}${message.role === 'assistant' ? (message.tool_calls ?? []).map((call) => `\n${call.function.arguments}`).join('') : ''}`)
      .join('\n');
    const text = write(messages[0]?.role === 'system' ? source : `${messages[0]?.content ?? ''}\n${source}`);
    this.outcome.calls.push({ kind: 'summary', messages, tools, outputTokens: this.setup.counter.countText(text), at: this.now });
    return text;
  }

  /**
   * pi's findCutPoint (compaction.ts:376-436): walk back from the newest item, not below `start`, until keepRecentTokens
   * are reached, then cut at the nearest user or assistant message at or after that point; `start` when the kept part
   * is everything since it.
   */
  private piCut(keepTokens: number, start: number): number {
    let kept = 0;
    for (let i = this.items.length - 1; i > start; i--) {
      kept += this.tokens([this.items[i]?.message as ChatMessage], []);
      if (kept < keepTokens) continue;
      const at = this.items.findIndex((item, j) => j >= i && item.message.role !== 'tool');
      return at < 0 ? this.items.length : at;
    }
    return start;
  }

  /**
   * OpenCode's select (compaction.ts:224-270 at 3df4a255): whole user turns from the newest while they fit the budget
   * (chars/4 of the messages as JSON), then the first turn that does not fit is split at its earliest assistant
   * message whose rest fits; no tail when nothing fits or the tail would start the session. Returns the tail's start.
   */
  private openCodeCut(budget: number): number {
    const starts = this.items.flatMap((item, i) => (item.message.role === 'user' ? [i] : []));
    let total = 0;
    let keep = -1;
    for (let t = starts.length - 1; t >= 0; t--) {
      const start = starts[t] as number;
      const end = starts[t + 1] ?? this.items.length;
      const size = charsOver4(this.items.slice(start, end).map((item) => item.message));
      if (total + size <= budget) {
        total += size;
        keep = start;
        continue;
      }
      for (let s = start + 1; s < end; s++) {
        if (this.items[s]?.message.role !== 'assistant') continue;
        if (charsOver4(this.items.slice(s, end).map((item) => item.message)) > budget - total) continue;
        keep = s;
        break;
      }
      break;
    }
    return keep <= 0 ? this.items.length : keep;
  }

  compact(): void {
    const policy = this.policy;
    const keep = policy.keepRecentTokens(this.setup.window);
    // pi summarizes only what came after its last compaction; what that one kept is neither summarized nor kept again.
    const start = policy.tail === 'pi' ? this.boundary : 0;
    const cut = policy.tail === 'pi' ? this.piCut(keep, start) : policy.tail === 'opencodeTurns' ? this.openCodeCut(keep) : this.items.length;
    if (cut === 0 || (cut <= start && start === 0)) return;
    // A cut inside a turn (pi only) summarizes the turn's head in a request of its own, when the turn starts after `start`.
    const turnStart = policy.splitTurnSummary === true && this.items[cut]?.message.role !== 'user' ? this.items.slice(0, cut).findLastIndex((item) => item.message.role === 'user') : -1;
    const split = turnStart >= start ? turnStart : cut;
    const summarized = this.items.slice(start, split).map((item) => item.message);
    const prefix = this.items.slice(split, cut).map((item) => item.message);
    const limit = policy.summaryMaxTokens(this.setup.window);
    let summary: string | null;
    if (policy.request === 'piSerialized') {
      // compaction.ts:518-545 generateSummary; :729-747 the split turn's prefix in parallel; :780-790 its own request
      // at 0.5 × reserve (:787), which is 0.625 × the summary's 0.8 × reserve.
      const previous = this.previousSummary ? `<previous-summary>\n${this.previousSummary}\n</previous-summary>\n\n` : '';
      const system = { role: 'system' as const, content: policy.summarySystem };
      if (summarized.length > 0 || prefix.length === 0) summary = this.summaryCall([system, { role: 'user', content: `<conversation>\n${piSerialized(summarized)}\n</conversation>\n\n${previous}${policy.summaryPrompt}` }], [], limit);
      else summary = 'No prior history.';
      if (prefix.length > 0 && summary !== null) {
        const head = this.summaryCall([system, { role: 'user', content: `<conversation>\n${piSerialized(prefix)}\n</conversation>\n\n${TURN_PREFIX_PROMPT}` }], [], Math.floor(limit * 0.625), turnPrefixStandIn);
        summary = head === null ? null : `${summary}\n\n---\n\n**Turn Context (split turn):**\n\n${head}`;
      }
    } else if (policy.request === 'opencodeSerialized') {
      const previous = this.previousSummary ? `\n\nThe summary of the conversation before this part:\n${this.previousSummary}` : '';
      summary = this.summaryCall([{ role: 'user', content: `${policy.summaryPrompt}${previous}\n\n${openCodeSerialized([...summarized])}` }], [], limit);
    } else {
      const conversation = [...this.head, ...summarized, { role: 'user' as const, content: policy.summaryPrompt }];
      if (policy.summaryReusesPrefix) summary = this.summaryCall([{ role: 'system', content: this.setup.systemPrompt }, ...conversation], this.setup.tools, limit);
      else summary = this.summaryCall([{ role: 'system', content: policy.summarySystem }, ...conversation], [], limit);
    }
    if (summary === null) {
      this.outcome.errors.push(`${policy.label}: the summary request did not fit the window`);
      return;
    }
    if (policy.fileLists) summary += this.fileLists([...summarized, ...prefix]);
    this.previousSummary = summary;
    this.head = [...policy.head(summary), ...this.rereads()];
    this.items = this.items.slice(cut);
    this.boundary = this.items.length;
    this.outcome.compactions++;
    const next = this.context();
    this.outcome.retention.push(retentionAfter(this.history, next));
    const text = (messages: readonly ChatMessage[]): string => messages.map((message) => `${message.content ?? ''}\n${message.role === 'assistant' ? (message.tool_calls ?? []).map((call) => call.function.arguments).join('\n') : ''}`).join('\n');
    this.outcome.snapshots.push({
      position: this.outcome.trace.length,
      summaryText: text(policy.head(summary)),
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
  let now = 0;
  for (const turn of turns) {
    session.addUser(turn.user);
    [...turn.steps, ...(turn.finalCall ? [{ text: turn.final, calls: [] }] : [])].forEach((step, i) => {
      now = turn.times?.[i] !== undefined ? Math.max(now, turn.times[i] ?? now) : now + 10;
      session.now = now;
      if (policy.trigger === 'beforeCall' && session.lastTokens > threshold) session.compact();
      session.send(step);
    });
    if (policy.trigger === 'afterTurn' && session.lastTokens > threshold) session.compact();
    session.prune();
  }
  return session.outcome;
}
