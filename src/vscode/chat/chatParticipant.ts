// The @agent chat participant: maps the chat thread to its session, then runs a slash command or the agent.
import * as vscode from 'vscode';
import type { CommandSnapshots } from '../../core/checkpoints/commandSnapshots';
import { runAgentRequest } from './agentRun';
import { renderModelError } from './agentEventView';
import type { AgentSession } from '../sessions/agentSession';
import type { AgentSessions } from '../sessions/agentSessions';
import { compactCommand, contextCommand, handoffCommand, pruneCommand } from './chatSlashCommands';
import { dropChatCommand } from '../panel/contextDrop';
import type { ChatReplies } from './chatReplies';
import { sessionIdFromHistory, threadLeafFromHistory, type AgentResultMetadata } from './chatThread';
import type { CompactionReview } from '../panel/compactionReview';
import type { Configuration } from '../configuration';
import type { ChatConfirmChange } from '../tools/changeConfirmation';
import { threadBranchPoint } from '../../core/session/threadBranch';
import { titleFromRequest } from '../../core/session/sessionTitle';
import type { EndpointConnection } from '../endpoint/endpointConnection';
import { SETUP_MODEL_ID, VENDOR } from '../endpoint/endpointModelProvider';
import type { Logger } from '../logger';
import { bindModel } from '../endpoint/modelBinding';
import { noteMarkdown } from './chatMarkdown';
import { SessionBusyError, type RunningRequest } from '../../core/agent/sessionEngine';
import { showSetup } from '../endpoint/setupReply';
import type { PendingImages } from './pendingImages';
import type { TerminalRunner } from '../tools/terminalRunner';
import type { RestoredBranchQuestions } from './restoredBranchQuestion';

export const PARTICIPANT_ID = 'compactionAgent.agent';

export interface ParticipantDeps {
  extensionUri: vscode.Uri;
  sessions: AgentSessions;
  endpoint: EndpointConnection;
  configuration: Configuration;
  review: CompactionReview;
  logger: Logger;
  showPanel: () => void;
  /** Records what each reply showed (read back by the extension-host tests). */
  replies: ChatReplies;
  /** Asked before the agent's tools change files or run commands. */
  confirmChange: ChatConfirmChange;
  /** Images "Attach Image…" queued for the next request. */
  pendingImages: PendingImages;
  /** The visible "@agent" terminal for run_command (tools.runCommandsInTerminal). */
  terminal: TerminalRunner;
  /** Snapshots the workspace around each run_command, so Restore Checkpoint can put back what it changed. */
  commandSnapshots?: CommandSnapshots;
  /** Asks in the running reply when a call on a restored branch would not fit. */
  restoredBranchQuestions?: RestoredBranchQuestions;
}

/** Requests whose words are a request to the agent (and so may name a session): not /compact's instructions, say. */
const NAMING_COMMANDS: ReadonlySet<string | undefined> = new Set([undefined, 'new']);

async function sessionFor(request: vscode.ChatRequest, context: vscode.ChatContext, deps: ParticipantDeps): Promise<AgentSession> {
  const existing = request.command === 'new' ? undefined : sessionIdFromHistory(context.history, PARTICIPANT_ID);
  const opened = existing ? await deps.sessions.open(existing) : undefined;
  if (existing && !opened) deps.logger.warn(`The session ${existing} of this chat could not be opened; starting a new one.`);
  // A chat with no session of its own continues the session a hand-off from the panel or palette just started.
  const handedOff = !existing && request.command !== 'new' ? deps.sessions.takeHandoff() : undefined;
  const continued = opened ?? handedOff;
  if (continued) return continued;
  // Named by its first request with words; until then (an empty /new, or a first /compact) a stand-in title.
  const title = NAMING_COMMANDS.has(request.command) ? titleFromRequest(request.prompt) : undefined;
  return deps.sessions.create(title ?? vscode.l10n.t('New session'), {}, { untitled: title === undefined, from: deps.sessions.active });
}

/** When the person edited or removed earlier requests in this thread, the session branches where the thread now ends. */
async function followThread(session: AgentSession, context: vscode.ChatContext, stream: vscode.ChatResponseStream): Promise<void> {
  const threadLeaf = threadLeafFromHistory(context.history, PARTICIPANT_ID, session.id);
  const point = threadLeaf ? threadBranchPoint(session.log.path(), threadLeaf) : undefined;
  if (!point) return;
  await session.log.moveLeaf(point.leafId, 'switch');
  const requests = point.dropped === 1 ? vscode.l10n.t('1 later request') : vscode.l10n.t('{0} later requests', point.dropped);
  stream.markdown(`*${vscode.l10n.t('This chat no longer shows {0} of the session (edited or removed), so the session continues from before them on a new branch; the earlier branch is kept (Switch Branch returns to it).', requests)}*\n\n`);
}

/** The request's cancel as an AbortSignal: VS Code's token is converted here, once. */
function abortSignalOf(token: vscode.CancellationToken): { signal: AbortSignal; dispose: () => void } {
  const abort = new AbortController();
  if (token.isCancellationRequested) abort.abort();
  const subscription = token.onCancellationRequested(() => abort.abort());
  return {
    signal: abort.signal,
    dispose: () => {
      subscription.dispose();
    },
  };
}

async function handle(deps: ParticipantDeps, request: vscode.ChatRequest, context: vscode.ChatContext, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<vscode.ChatResult> {
  if (request.model.vendor === VENDOR && (request.model.id === SETUP_MODEL_ID || !deps.endpoint.configured)) {
    showSetup(stream, deps.endpoint);
    return {};
  }
  const session = await sessionFor(request, context, deps);
  deps.sessions.activate(session);
  deps.review.dismissNotice(session);
  // The session this chat continues after the reply: a /handoff moves it to the new session.
  let continued = session;
  // Every answer names where it left the session, a failed one too: the next message must not take a turn
  // that failed for one the person edited away (it would branch back and forget what that turn did).
  const metadata = (): AgentResultMetadata => ({ sessionId: continued.id, leafId: continued.log.leafId });
  if (session.log.readOnly) {
    stream.markdown(vscode.l10n.t('This session is open in another VS Code window, so it is read-only here. Continue it there, or start a new one with `/new`.'));
    return { metadata: metadata() };
  }
  const cancel = abortSignalOf(token);
  let run: RunningRequest;
  try {
    run = await session.engine.beginRequest(cancel.signal, request.command === 'compact' ? { replacesReview: vscode.l10n.t('The automatic compaction waiting for review was replaced by your /compact.') } : {});
  } catch (error) {
    cancel.dispose();
    if (!(error instanceof SessionBusyError)) throw error;
    stream.markdown(noteMarkdown(error.message));
    return { metadata: metadata() };
  }
  try {
    if (request.command !== 'new') await followThread(session, context, stream);
    const bound = await bindModel(request.model, deps.endpoint, deps.configuration);
    await session.useModel(bound.choice);
    await deps.sessions.rememberModel({ vendor: request.model.vendor, id: request.model.id });
    const input = { session, prompt: request.prompt, stream, configuration: deps.configuration, review: deps.review, showPanel: deps.showPanel, signal: run.signal };
    const agent = { session, bound, request, stream, signal: run.signal, configuration: deps.configuration, review: deps.review, confirm: deps.confirmChange, pendingImages: deps.pendingImages, terminal: deps.terminal, commandSnapshots: deps.commandSnapshots, sessions: deps.sessions, questions: deps.restoredBranchQuestions };
    switch (request.command) {
      case 'compact':
        await compactCommand(input);
        break;
      case 'context':
        await contextCommand(input);
        break;
      case 'prune':
        await pruneCommand(input);
        break;
      case 'drop':
        await dropChatCommand(session, request.prompt, stream);
        break;
      case 'handoff':
        continued = (await handoffCommand(input)) ?? session;
        break;
      case 'new':
        if (!request.prompt.trim()) {
          stream.markdown(vscode.l10n.t('Started a new session; your first request names it. The previous one stays stored; its chat thread still continues it.'));
          break;
        }
        await deps.sessions.nameFromRequest(session, request.prompt);
        await runAgentRequest(agent);
        break;
      default:
        await deps.sessions.nameFromRequest(session, request.prompt);
        await runAgentRequest(agent);
    }
    await deps.sessions.store.touch(continued.id);
    return { metadata: metadata() };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    deps.logger.error(`@agent request failed: ${message}`);
    renderModelError(stream, message);
    return { metadata: metadata(), errorDetails: { message } };
  } finally {
    run.end();
    cancel.dispose();
  }
}

export function registerChatParticipant(deps: ParticipantDeps): vscode.Disposable {
  const participant = vscode.chat.createChatParticipant(PARTICIPANT_ID, async (request, context, shown, token) => {
    const { stream, reply } = deps.replies.record(request, shown);
    let result: vscode.ChatResult;
    try {
      result = await handle(deps, request, context, stream, token);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      deps.logger.error(`@agent request failed: ${message}`);
      renderModelError(stream, message);
      result = { errorDetails: { message } };
    }
    reply.result = result;
    reply.done = true;
    return result;
  });
  participant.iconPath = vscode.Uri.joinPath(deps.extensionUri, 'media', 'icon.png');
  return participant;
}
