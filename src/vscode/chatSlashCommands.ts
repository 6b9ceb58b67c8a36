// The @agent slash commands: /compact, /context, /prune, /handoff (each reports in one or two lines).
import * as vscode from 'vscode';
import { pruneNow } from '../core/agent/pruneRunner';
import { formatCount, formatTokens } from '../shared/budgetFormat';
import type { AgentSession } from './agentSession';
import type { CompactionReview } from './compactionReview';
import type { Configuration } from './configuration';

export interface SlashCommandInput {
  session: AgentSession;
  prompt: string;
  stream: vscode.ChatResponseStream;
  configuration: Configuration;
  review: CompactionReview;
  showPanel: () => void;
  /** The request's cancel from its SessionEngine run. */
  signal: AbortSignal;
}

export async function compactCommand(input: SlashCommandInput): Promise<void> {
  const { session, stream, configuration, review } = input;
  const instructions = input.prompt.trim() || undefined;
  stream.progress(instructions ? `Summarizing older turns (focus: ${instructions})…` : 'Summarizing older turns…');
  const pending = await review.propose(session, instructions, false, input.signal);
  if (input.signal.aborted) {
    stream.markdown('Compaction cancelled; nothing changed.');
    return;
  }
  if (!pending) {
    stream.markdown('Nothing to compact yet: the conversation is shorter than what is kept verbatim.');
    return;
  }
  const reviewFirst = configuration.settings.compaction.review !== 'never' || pending.review.proposal.needsReview;
  if (reviewFirst) {
    input.showPanel();
    const why = pending.review.proposal.needsReview ? ` It needs your review: ${pending.review.proposal.problems.join('; ')}.` : '';
    stream.markdown(`The proposed summary (${formatTokens(pending.review.proposal.tokensBefore)} → ~${formatTokens(pending.review.proposal.tokensAfter)} tokens) is open in the **Context & Compaction** panel: edit it if you like, then Apply or Cancel.${why}`);
    stream.button({ command: 'compactionAgent.showBudget', title: 'Review summary' });
    return;
  }
  const entry = await review.applyPending(pending, pending.review.proposal.summary, false);
  stream.markdown(`Compacted: ${formatTokens(entry.tokensBefore)} → ${formatTokens(entry.tokensAfter)} tokens.`);
  stream.button({ command: 'compactionAgent.showBudget', title: 'View summary' });
  stream.button({ command: 'compactionAgent.restorePreCompactionBranch', title: 'Restore', arguments: [entry.id] });
}

export async function contextCommand(input: SlashCommandInput): Promise<void> {
  const { session, stream } = input;
  await session.ensureCounter();
  const view = session.budgetView();
  if (!view) {
    stream.markdown('The tokenizer could not be loaded, so the budget is unknown.');
    return;
  }
  const state = view.unknown ? 'unknown until the next usage report (just compacted)' : view.estimated ? 'estimate (no usage report from the endpoint yet)' : 'calibrated against the endpoint’s usage reports';
  const row = (name: string, tokens: number): string => `| ${name} | ${formatCount(tokens, vscode.env.language)} | ${view.usable > 0 ? ((tokens / view.usable) * 100).toFixed(1) : '0.0'} % |`;
  stream.markdown(
    [
      `**Context budget** — ${view.model}, window ${formatCount(view.contextWindow, vscode.env.language)} tokens (${view.windowSource}); ${state}${view.exact ? ', exact tokenizer' : ''}.`,
      '',
      '| part | tokens | of usable |',
      '| --- | ---: | ---: |',
      row('System prompt', view.breakdown.system),
      ...(view.breakdown.instructions > 0 ? [row('Instruction files', view.breakdown.instructions)] : []),
      row('Tool definitions', view.breakdown.tools),
      row('Summary', view.breakdown.summary),
      row('Messages', view.breakdown.messages),
      row('Tool results', view.breakdown.toolResults),
      row('**Used**', view.used),
      row('Free', view.breakdown.free),
      `| Reserved for output | ${formatCount(view.reserved, vscode.env.language)} | (not usable) |`,
      '',
      `${session.tools.length} tool definitions are sent with every request. Auto-compaction is ${view.autoCompaction ? 'on' : 'off'}.`,
    ].join('\n'),
  );
  stream.button({ command: 'compactionAgent.showBudget', title: 'Open Context & Compaction panel' });
}

export async function pruneCommand(input: SlashCommandInput): Promise<void> {
  const { session, stream } = input;
  await session.ensureCounter();
  const deps = session.deps();
  if (!deps) throw new Error('The tokenizer could not be loaded.');
  const entry = await pruneNow(session.log, deps, { reason: 'manual', anySize: true });
  stream.markdown(
    entry
      ? `Pruned ${entry.toolResultIds.length} old tool output(s): ~${formatTokens(entry.tokensFreed)} tokens freed. The model sees a placeholder and can read them back with read_stored_output.`
      : `Nothing to prune: every tool output is within the protected recent window (${formatTokens(deps.settings.pruning.protectTokens)} tokens, last ${deps.settings.pruning.protectTurns} turns).`,
  );
}

/**
 * /handoff [instructions]: the whole context is summarized and reviewed as for a compaction (this request waits for
 * the panel's Apply or Cancel), then a new session starts with the reviewed summary and a link back; this chat
 * continues the new session, and the source stays whole in Sessions. Returns the new session, if one started.
 */
export async function handoffCommand(input: SlashCommandInput): Promise<AgentSession | undefined> {
  const { session, stream, configuration, review } = input;
  const instructions = input.prompt.trim() || undefined;
  stream.progress(instructions ? `Summarizing this session for a new one (focus: ${instructions})…` : 'Summarizing this session for a new one…');
  const made = await review.proposeHandoff(session, instructions, input.signal);
  if (input.signal.aborted) {
    stream.markdown('Hand-off cancelled; nothing changed.');
    return undefined;
  }
  if (!made) {
    stream.markdown('Nothing to hand off yet: this session has no messages. Send a request first, or start an empty session with `/new`.');
    return undefined;
  }
  const { proposal, modelId } = made;
  let summary = proposal.summary;
  let edited = false;
  if (configuration.settings.compaction.review !== 'never' || proposal.needsReview) {
    const why = proposal.needsReview ? ` It needs your review: ${proposal.problems.join('; ')}.` : '';
    stream.markdown(`The summary for the new session (${formatTokens(proposal.tokensBefore)} → ~${formatTokens(proposal.tokensAfter)} tokens) is open in the **Context & Compaction** panel: edit it if you like, then Apply to start the new session, or Cancel.${why}\n\n`);
    stream.progress('Waiting for your review…');
    const decision = await review.reviewForLoop(session, proposal, modelId, input.signal);
    if (decision.action !== 'apply') {
      stream.markdown(`Hand-off cancelled${decision.reason ? ` (${decision.reason})` : ''}; nothing changed.`);
      return undefined;
    }
    summary = decision.summary;
    edited = decision.edited;
  }
  const started = await review.startHandoffSession(session, proposal, summary, edited, modelId);
  const seed = started.log.path()[0];
  const tokens = seed?.type === 'compaction' ? ` (~${formatTokens(seed.tokensAfter)} tokens)` : '';
  stream.markdown(`Started the new session "${started.title}" from the reviewed summary${tokens}; this chat continues it. "${session.title}" stays whole in **Compaction Agent: Sessions…**.`);
  stream.button({ command: 'compactionAgent.showBudget', title: 'View summary' });
  return started;
}
