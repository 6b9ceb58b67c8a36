// The @agent slash commands: /compact, /context, /prune, /handoff (each reports in one or two lines).
import * as vscode from 'vscode';
import { pruneNow } from '../../core/agent/pruneRunner';
import { escapeMarkdownCell, formatCount, formatTokens } from '../../shared/budgetFormat';
import type { AgentSession } from '../sessions/agentSession';
import type { CompactionReview } from '../panel/compactionReview';
import type { Configuration } from '../configuration';

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
  const { session, stream, review } = input;
  const instructions = input.prompt.trim() || undefined;
  stream.progress(instructions ? vscode.l10n.t('Summarizing older turns (focus: {0})…', instructions) : vscode.l10n.t('Summarizing older turns…'));
  const done = await review.compact(session, input.prompt, input.signal);
  if (input.signal.aborted) {
    stream.markdown(vscode.l10n.t('Compaction cancelled; nothing changed.'));
    return;
  }
  if (!done) {
    stream.markdown(vscode.l10n.t('Nothing to compact yet: the conversation is shorter than what is kept verbatim.'));
    return;
  }
  if ('review' in done) {
    const { proposal } = done.review;
    input.showPanel();
    const why = proposal.needsReview ? ` ${vscode.l10n.t('It needs your review: {0}.', proposal.problems.join('; '))}` : '';
    stream.markdown(`${vscode.l10n.t('The proposed summary ({0} → ~{1} tokens) is open in the **Context & Compaction** panel: edit it if you like, then Apply or Cancel.', formatTokens(proposal.tokensBefore), formatTokens(proposal.tokensAfter))}${why}`);
    stream.button({ command: 'compactionAgent.showBudget', title: vscode.l10n.t('Review summary') });
    return;
  }
  const { entry } = done.applied;
  stream.markdown(vscode.l10n.t('Compacted: {0} → {1} tokens.', formatTokens(entry.tokensBefore), formatTokens(entry.tokensAfter)));
  stream.button({ command: 'compactionAgent.showBudget', title: vscode.l10n.t('View summary') });
  stream.button({ command: 'compactionAgent.restorePreCompactionBranch', title: vscode.l10n.t('Restore pre-compaction branch'), arguments: [entry.id] });
}

export async function contextCommand(input: SlashCommandInput): Promise<void> {
  const { session, stream } = input;
  await session.ensureCounter();
  const view = session.budgetView();
  if (!view) {
    stream.markdown(vscode.l10n.t('The tokenizer could not be loaded, so the budget is unknown.'));
    return;
  }
  const state = view.unknown
    ? vscode.l10n.t('unknown until the next usage report (just compacted)')
    : view.estimated
      ? vscode.l10n.t('estimate (no usage report from the endpoint yet)')
      : vscode.l10n.t('calibrated against the endpoint’s usage reports');
  const row = (name: string, tokens: number): string => `| ${name} | ${formatCount(tokens, vscode.env.language)} | ${view.usable > 0 ? ((tokens / view.usable) * 100).toFixed(1) : '0.0'} % |`;
  stream.markdown(
    [
      vscode.l10n.t('**Context budget** — {0}, window {1} tokens ({2}); {3}{4}.', view.model, formatCount(view.contextWindow, vscode.env.language), view.windowSource, state, view.exact ? vscode.l10n.t(', exact tokenizer') : ''),
      '',
      `| ${vscode.l10n.t('part')} | ${vscode.l10n.t('tokens')} | ${vscode.l10n.t('of usable')} |`,
      '| --- | ---: | ---: |',
      row(vscode.l10n.t('System prompt'), view.breakdown.system),
      ...(view.breakdown.instructions > 0 ? [row(vscode.l10n.t('Instruction files'), view.breakdown.instructions)] : []),
      row(vscode.l10n.t('Tool definitions'), view.breakdown.tools),
      row(vscode.l10n.t('Summary'), view.breakdown.summary),
      row(vscode.l10n.t('Messages'), view.breakdown.messages),
      row(vscode.l10n.t('Tool results'), view.breakdown.toolResults),
      row(`**${vscode.l10n.t('Used')}**`, view.used),
      row(vscode.l10n.t('Free'), view.breakdown.free),
      `| ${vscode.l10n.t('Reserved for output')} | ${formatCount(view.reserved, vscode.env.language)} | ${vscode.l10n.t('(not usable)')} |`,
      '',
      view.autoCompaction
        ? vscode.l10n.t('{0} tool definitions are sent with every request. Auto-compaction is on.', session.tools.length)
        : vscode.l10n.t('{0} tool definitions are sent with every request. Auto-compaction is off.', session.tools.length),
    ].join('\n'),
  );
  stream.button({ command: 'compactionAgent.showBudget', title: vscode.l10n.t('Open Context & Compaction panel') });
}

export async function pruneCommand(input: SlashCommandInput): Promise<void> {
  const { session, stream } = input;
  await session.ensureCounter();
  const deps = session.deps();
  if (!deps) throw new Error(vscode.l10n.t('The tokenizer could not be loaded.'));
  const entry = await pruneNow(session.log, deps, { reason: 'manual', anySize: true });
  stream.markdown(
    entry
      ? vscode.l10n.t('Pruned {0} old tool output(s): ~{1} tokens freed. The model sees a placeholder and can read them back with read_stored_output.', entry.toolResultIds.length, formatTokens(entry.tokensFreed))
      : vscode.l10n.t('Nothing to prune: every tool output is within the protected recent window ({0} tokens, last {1} turns).', formatTokens(deps.settings.pruning.protectTokens), deps.settings.pruning.protectTurns),
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
  stream.progress(instructions ? vscode.l10n.t('Summarizing this session for a new one (focus: {0})…', instructions) : vscode.l10n.t('Summarizing this session for a new one…'));
  const made = await review.proposeHandoff(session, instructions, input.signal);
  if (input.signal.aborted) {
    stream.markdown(vscode.l10n.t('Hand-off cancelled; nothing changed.'));
    return undefined;
  }
  if (!made) {
    stream.markdown(vscode.l10n.t('Nothing to hand off yet: this session has no messages. Send a request first, or start an empty session with `/new`.'));
    return undefined;
  }
  const { modelId } = made;
  // What is applied is the proposal the review holds when the person applies it (Regenerate replaces the first one).
  let proposal = made.proposal;
  let summary = proposal.summary;
  let edited = false;
  if (configuration.settings.compaction.review !== 'never' || proposal.needsReview) {
    const why = proposal.needsReview ? vscode.l10n.t(' It needs your review: {0}.', proposal.problems.join('; ')) : '';
    stream.markdown(`${vscode.l10n.t('The summary for the new session ({0} → ~{1} tokens) is open in the **Context & Compaction** panel: edit it if you like, then Start new session, or Cancel.', formatTokens(proposal.tokensBefore), formatTokens(proposal.tokensAfter))}${why}\n\n`);
    stream.progress(vscode.l10n.t('Waiting for your review…'));
    const decision = await review.reviewForLoop(session, proposal, modelId, input.signal);
    if (decision.action !== 'apply') {
      stream.markdown(decision.reason ? vscode.l10n.t('Hand-off cancelled ({0}); nothing changed.', decision.reason) : vscode.l10n.t('Hand-off cancelled; nothing changed.'));
      return undefined;
    }
    ({ proposal, summary, edited } = decision);
  }
  const started = await review.startSession(session, proposal, { summary, edited }, modelId, true);
  if (!started) throw new Error(vscode.l10n.t('The new session could not be created.'));
  const seed = started.log.path()[0];
  const tokens = seed?.type === 'compaction' ? vscode.l10n.t(' (~{0} tokens)', formatTokens(seed.tokensAfter)) : '';
  stream.markdown(vscode.l10n.t('Started a new session from the reviewed summary{0}; this chat continues it, and your next request names it. "{1}" stays whole in **Compaction Agent: Sessions…**.', tokens, escapeMarkdownCell(session.title)));
  stream.button({ command: 'compactionAgent.showBudget', title: vscode.l10n.t('View summary') });
  return started;
}
