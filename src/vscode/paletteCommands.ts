// The command palette: restore before a compaction, restore a checkpoint, switch branch, compact, prune, drop, hand-off, budget, sessions, setup, key, settings.
import * as vscode from 'vscode';
import type { CompactionEntry, SessionEntry } from '../core/session/entries';
import { isMessageEntry } from '../core/session/entries';
import { formatTokens, formatWhen } from '../shared/budgetFormat';
import type { AgentSession } from './sessions/agentSession';
import type { AgentSessions } from './sessions/agentSessions';
import type { ApiKeyStore } from './endpoint/apiKeyStore';
import type { CompactionReview } from './panel/compactionReview';
import { confirmStopRequest } from './sessions/stopRequestConfirmation';
import { manageSessions } from './sessions/sessionsCommand';
import { openSession } from './chat/subagentRun';
import { dropFromContextCommand } from './panel/contextDrop';
import { restoreCheckpoint } from './sessions/checkpointRestore';
import { showReasoning } from './chat/reasoningView';
import type { RestoredBranchQuestions } from './chat/restoredBranchQuestion';
import type { PendingImages } from './chat/pendingImages';
import { attachImages } from './chat/pendingImages';
import { chooseSummaryModel } from './endpoint/summaryModelPicker';
import type { Configuration } from './configuration';
import type { EndpointConnection } from './endpoint/endpointConnection';
import { runEndpointSetup } from './endpoint/endpointSetup';
import { describeCompaction } from '../core/views/compactionDescription';
import { awaitingCompactionConsent, RESUME_LABEL } from '../core/compaction/compactionUndo';
import { entryTitle } from '../core/session/entryTitle';
import { boundedPick } from './boundedPick';

export interface CommandDeps {
  sessions: AgentSessions;
  review: CompactionReview;
  keys: ApiKeyStore;
  configuration: Configuration;
  endpoint: EndpointConnection;
  showPanel: () => void;
  pendingImages: PendingImages;
  /** The in-place questions of requests on restored branches (their chat buttons answer through a hidden command). */
  restoredBranchQuestions: RestoredBranchQuestions;
}

/** Every command id this module registers; the manifest is tested against it. */
export const COMMAND_IDS = [
  'compactionAgent.showBudget',
  'compactionAgent.askAgent',
  'compactionAgent.restorePreCompactionBranch',
  'compactionAgent.restoreCheckpoint',
  'compactionAgent.resumeAutoCompaction',
  'compactionAgent.showReasoning',
  'compactionAgent.answerRestoredBranch',
  'compactionAgent.attachImage',
  'compactionAgent.chooseSummaryModel',
  'compactionAgent.switchBranch',
  'compactionAgent.compactNow',
  'compactionAgent.pruneNow',
  'compactionAgent.dropFromContext',
  'compactionAgent.newSessionFromSummary',
  'compactionAgent.newSession',
  'compactionAgent.importPiSession',
  'compactionAgent.manageSessions',
  'compactionAgent.openSession',
  'compactionAgent.setUp',
  'compactionAgent.setApiKey',
  'compactionAgent.clearApiKey',
  'compactionAgent.openSettings',
] as const;

type CommandId = (typeof COMMAND_IDS)[number];

async function requireSession(deps: CommandDeps): Promise<AgentSession | undefined> {
  const session = await deps.sessions.activeOrLatest();
  if (!session) void vscode.window.showInformationMessage(vscode.l10n.t('No @agent session yet: send a message to @agent in the Chat view first.'));
  return session;
}

function when(timestamp: string): string {
  return formatWhen(timestamp, vscode.env.language);
}

async function restorePreCompactionBranch(deps: CommandDeps, compactionId?: unknown): Promise<void> {
  const session = await requireSession(deps);
  if (!session) return;
  const path = session.log.path();
  const compactions = path.filter((entry): entry is CompactionEntry => entry.type === 'compaction');
  if (compactions.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('There is no compaction on the current branch of this session: nothing to restore.'));
    return;
  }
  let target = typeof compactionId === 'string' ? compactions.find((entry) => entry.id === compactionId) : undefined;
  if (!target) {
    const pick = boundedPick([...compactions].reverse(), vscode.l10n.t('Restore Pre-Compaction Branch'));
    const picked = await vscode.window.showQuickPick(
      pick.items.map((entry) => ({
        label: `$(history) ${when(entry.timestamp)}`,
        detail: describeCompaction(path, entry, formatTokens),
        entry,
      })),
      { title: pick.title, placeHolder: vscode.l10n.t('Pick the compaction to undo (the compacted branch stays available)') },
    );
    target = picked?.entry;
  }
  if (!target) return;
  void vscode.window.showInformationMessage(await deps.review.restore(target.id));
}

function branchLabel(session: AgentSession, tip: SessionEntry): string {
  const path = session.log.tree.pathTo(tip.id);
  const lastMessage = [...path].reverse().find(isMessageEntry);
  return lastMessage ? entryTitle(lastMessage) : tip.type;
}

async function switchBranch(deps: CommandDeps): Promise<void> {
  const session = await requireSession(deps);
  if (!session) return;
  const tips = session.log.tree.leaves();
  if (tips.length < 2) {
    void vscode.window.showInformationMessage(vscode.l10n.t('This session has a single branch.'));
    return;
  }
  const current = session.log.leafId;
  // Later branches were made later: the newest are kept when there are more than a pick holds.
  const pick = boundedPick(tips, vscode.l10n.t('Switch Branch'), 'last');
  const picked = await vscode.window.showQuickPick(
    pick.items.map((tip) => ({
      label: `${tip.id === current ? '$(check) ' : '$(git-branch) '}${branchLabel(session, tip)}`,
      description: `${when(tip.timestamp)} · ${session.log.tree.pathTo(tip.id).length} entries`,
      tip,
    })),
    { title: pick.title, placeHolder: vscode.l10n.t('Continue the session from another branch (nothing is lost)') },
  );
  if (!picked || picked.tip.id === current) return;
  const moved = await session.engine.exclusive('switching branch', async () => session.log.moveLeaf(picked.tip.id, 'switch'), confirmStopRequest);
  if (!moved) return;
  session.noteForChat(vscode.l10n.t('Switched to another branch of this session ({0}).', branchLabel(session, picked.tip)));
}

async function compactNow(deps: CommandDeps): Promise<void> {
  const session = await requireSession(deps);
  if (!session) return;
  const instructions = await vscode.window.showInputBox({ title: vscode.l10n.t('Compact Now'), prompt: vscode.l10n.t('Optional instructions: what the summary must keep (Enter to skip)') });
  if (instructions === undefined) return;
  await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Compaction Agent: summarizing older turns…') }, async () => {
    const done = await deps.review.compact(session, instructions);
    if (!done) return;
    if ('applied' in done) void vscode.window.showInformationMessage(`Compacted: ${formatTokens(done.applied.entry.tokensBefore)} → ${formatTokens(done.applied.entry.tokensAfter)} tokens.`);
    else deps.showPanel();
  });
}

function handlers(deps: CommandDeps): Record<CommandId, (...args: unknown[]) => Promise<void> | void> {
  return {
    'compactionAgent.showBudget': () => deps.showPanel(),
    // The chat input gets exactly "@agent " (replacing what it held, so a sticky @agent is not doubled).
    'compactionAgent.askAgent': async () => {
      await vscode.commands.executeCommand('workbench.action.chat.open', { query: '@agent ', isPartialQuery: true });
    },
    'compactionAgent.restorePreCompactionBranch': (compactionId) => restorePreCompactionBranch(deps, compactionId),
    'compactionAgent.restoreCheckpoint': async (entryId, mode) => {
      const session = await requireSession(deps);
      if (!session) return;
      const message = await restoreCheckpoint(session, typeof entryId === 'string' ? entryId : undefined, mode);
      if (!message) return;
      deps.review.say('info', message);
      void vscode.window.showInformationMessage(message);
    },
    'compactionAgent.resumeAutoCompaction': async () => {
      const session = await requireSession(deps);
      if (!session) return;
      if (!awaitingCompactionConsent(session.log.path())) {
        void vscode.window.showInformationMessage(vscode.l10n.t('Automatic compaction is not paused on this branch.'));
        return;
      }
      await session.log.append({ type: 'label', targetId: session.log.leafId ?? session.id, label: RESUME_LABEL });
      session.noteForChat(vscode.l10n.t('Automatic compaction is on again for this branch.'));
      void vscode.window.showInformationMessage(vscode.l10n.t('Automatic compaction is on again for this branch: it compacts when the context nears its limit.'));
    },
    'compactionAgent.showReasoning': (text) => showReasoning(text),
    'compactionAgent.answerRestoredBranch': (id, choice) => void deps.restoredBranchQuestions.answer(id, choice),
    'compactionAgent.attachImage': (uris) => attachImages(deps.pendingImages, uris),
    'compactionAgent.chooseSummaryModel': async () => {
      const chosen = await chooseSummaryModel(deps.endpoint, deps.configuration);
      if (chosen !== undefined) void vscode.window.showInformationMessage(chosen ? vscode.l10n.t('Summaries are now written by {0}.', chosen) : vscode.l10n.t("Summaries are now written by the chat's model."));
    },
    'compactionAgent.switchBranch': () => switchBranch(deps),
    'compactionAgent.compactNow': () => compactNow(deps),
    'compactionAgent.pruneNow': async () => {
      if (!(await requireSession(deps))) return;
      await deps.review.pruneNow();
      deps.showPanel();
    },
    'compactionAgent.dropFromContext': async (request) => {
      const message = await dropFromContextCommand(deps.sessions, request);
      if (message) void vscode.window.showInformationMessage(message);
    },
    'compactionAgent.newSessionFromSummary': async () => {
      if (!(await requireSession(deps))) return;
      const instructions = await vscode.window.showInputBox({ title: vscode.l10n.t('New Session from Summary'), prompt: vscode.l10n.t('Optional instructions: what the summary for the new session must keep (Enter to skip)') });
      if (instructions === undefined) return;
      await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Compaction Agent: summarizing the session for a new one…') }, () => deps.review.handOff(instructions));
    },
    'compactionAgent.newSession': async () => {
      await vscode.commands.executeCommand('workbench.action.chat.open', { query: '@agent /new ', isPartialQuery: true });
    },
    'compactionAgent.importPiSession': async () => {
      const files = await vscode.window.showOpenDialog({ title: vscode.l10n.t('Import a pi-coding-agent session'), filters: { [vscode.l10n.t('Session log')]: ['jsonl'] }, canSelectMany: false });
      const file = files?.[0];
      if (!file) return;
      const { record, warnings } = await deps.sessions.store.importPi(file.fsPath);
      const session = await deps.sessions.open(record.id);
      if (session) deps.sessions.activate(session);
      void vscode.window.showInformationMessage(
        warnings.length
          ? vscode.l10n.t('Imported "{0}" ({1} entries), with {2} warning(s).', record.title, session?.log.tree.entries.length ?? 0, warnings.length)
          : vscode.l10n.t('Imported "{0}" ({1} entries).', record.title, session?.log.tree.entries.length ?? 0),
      );
      deps.showPanel();
    },
    'compactionAgent.manageSessions': () => manageSessions(deps.sessions, deps.showPanel),
    'compactionAgent.openSession': (id) => openSession(deps.sessions, id, deps.showPanel),
    // Also the language-model provider's managementCommand: VS Code passes the vendor, which is ignored.
    'compactionAgent.setUp': () => runEndpointSetup(deps),
    'compactionAgent.setApiKey': async () => {
      if (await deps.keys.prompt()) void vscode.window.showInformationMessage(vscode.l10n.t('Compaction Agent: API key saved in secret storage.'));
    },
    'compactionAgent.clearApiKey': async () => {
      await deps.keys.clear();
      void vscode.window.showInformationMessage(vscode.l10n.t('Compaction Agent: API key removed.'));
    },
    'compactionAgent.openSettings': async () => {
      await vscode.commands.executeCommand('workbench.action.openSettings', '@ext:compaction-labs.compaction-agent');
    },
  };
}

export function registerPaletteCommands(deps: CommandDeps): vscode.Disposable[] {
  return Object.entries(handlers(deps)).map(([id, handler]) =>
    vscode.commands.registerCommand(id, async (...args: unknown[]) => {
      try {
        await handler(...args);
      } catch (error) {
        void vscode.window.showErrorMessage(vscode.l10n.t('Compaction Agent: {0}', error instanceof Error ? error.message : String(error)));
      }
    }),
  );
}
