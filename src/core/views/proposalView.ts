// Turns a compaction proposal into the review panel's view: the summary, what it replaces and what is kept.
import type { CompactionProposal, EntrySize } from '../compaction/compaction';
import { pinnedEntryIds } from '../context/contextMarkers';
import { latestCompaction } from './budgetView';
import { toEntryView } from './historyView';
import type { MessageEntry, SessionEntry } from '../session/entries';
import { isMessageEntry } from '../session/entries';
import type { CompactionProposalView, EntryView } from '../../shared/panelViewModels';

export function toProposalView(
  id: string,
  proposal: CompactionProposal,
  path: readonly SessionEntry[],
  auto: boolean,
): CompactionProposalView {
  const byId = new Map(path.filter(isMessageEntry).map((entry) => [entry.id, entry] as const));
  const pinned = pinnedEntryIds(path);
  const views = (sizes: readonly EntrySize[]): EntryView[] =>
    sizes.flatMap((size) => {
      const entry: MessageEntry | undefined = byId.get(size.id);
      return entry ? [toEntryView(entry, size.tokens, pinned.has(entry.id))] : [];
    });
  const previous = latestCompaction(path);
  // The person's requests among them: the review counts turns as the history and the restore picker do.
  const turns = (sizes: readonly EntrySize[]): number => sizes.filter((size) => {
    const entry = byId.get(size.id);
    return entry?.type === 'user' && !entry.synthetic;
  }).length;
  return {
    id,
    summary: proposal.summary,
    ...(proposal.turnPrefixSummary !== undefined ? { turnPrefixSummary: proposal.turnPrefixSummary } : {}),
    ...(previous ? { previousSummary: previous.summary } : {}),
    ...(proposal.instructions !== undefined ? { instructions: proposal.instructions } : {}),
    tokensBefore: proposal.tokensBefore,
    estimatedTokensAfter: proposal.tokensAfter,
    summarized: views(proposal.summarized),
    kept: views(proposal.kept),
    summarizedTurns: turns(proposal.summarized),
    keptTurns: turns(proposal.kept),
    problems: proposal.problems,
    needsReview: proposal.needsReview,
    auto,
    ...(proposal.handoff ? { handoff: true } : {}),
  };
}
