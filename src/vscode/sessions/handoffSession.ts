// Where a hand-off's new session goes: created beside its source (named by its first request), made the active one, and continued by the next @agent chat.
import * as vscode from 'vscode';
import { handOff, type WhileBusy } from '../../core/agent/reviewFlows';
import type { ApplyContext, Approval } from '../../core/compaction/applyProposal';
import type { CompactionProposal } from '../../core/compaction/compaction';
import type { CountingDeps } from '../../core/budget/meter';
import type { HandoffSource } from '../../core/session/entries';
import { confirmStopRequest } from './stopRequestConfirmation';
import type { AgentSession } from './agentSession';
import type { AgentSessions } from './agentSessions';

export interface HandoffSession {
  /** What the core's apply path needs: the source it names and how the new session's log is created. */
  target: NonNullable<ApplyContext['handoff']>;
  /** The session `target.create` made (throws when the apply never got that far). */
  created(): AgentSession;
}

/** A new session for a hand-off from `session`; until its first request names it, its title says whose work it continues. */
export function handoffSession(sessions: AgentSessions, session: AgentSession): HandoffSession {
  let created: AgentSession | undefined;
  return {
    target: {
      source: { sessionId: session.id, leafId: session.log.leafId, title: session.title },
      create: async (from: HandoffSource) => {
        created = await sessions.create(vscode.l10n.t('Continues “{0}”', session.title), { handoffFrom: from }, { untitled: true, from: session });
        return created.log;
      },
    },
    created: () => {
      if (!created) throw new Error(vscode.l10n.t('The new session could not be created.'));
      return created;
    },
  };
}

/** The new session becomes the active one; started outside a chat, the next @agent request in a new chat continues it. */
export async function continueHandoff(sessions: AgentSessions, created: AgentSession, newChat: boolean): Promise<void> {
  sessions.activate(created);
  if (!newChat) return;
  sessions.offerHandoff(created);
  try {
    await vscode.commands.executeCommand('workbench.action.chat.newChat');
    await vscode.commands.executeCommand('workbench.action.chat.open', { query: '@agent ', isPartialQuery: true });
  } catch {
    // Without a Chat view the new session is still the active one: any new @agent chat continues it.
  }
}

export interface StartOptions {
  deps: CountingDeps;
  /** The model that wrote the summary. */
  model: string;
  /** /handoff holds the session already; otherwise it is taken (a running request is stopped after asking). */
  inRequest: boolean;
  whileApplying: WhileBusy;
  /** Told what happened, in words. */
  say: (text: string) => void;
}

/**
 * Starts the new session from a hand-off proposal no review waits for (the core's one apply path: the source held,
 * planned again on what it is now, not written to) and makes it the active one. Undefined when the person kept a
 * running request.
 */
export async function startHandoffSession(sessions: AgentSessions, session: AgentSession, proposal: CompactionProposal, approval: Approval, options: StartOptions): Promise<AgentSession | undefined> {
  const handoff = handoffSession(sessions, session);
  const started = await handOff(session, proposal, approval, { deps: options.deps, handoff: handoff.target, model: options.model, confirmStop: confirmStopRequest, inRequest: options.inRequest, whileApplying: options.whileApplying });
  if (!started) return undefined;
  return handedOff(sessions, session, handoff.created(), !options.inRequest, options.say);
}

/** Says that the new session started (its source stays whole), and continues it (see continueHandoff). */
export async function handedOff(sessions: AgentSessions, session: AgentSession, created: AgentSession, newChat: boolean, say: (text: string) => void): Promise<AgentSession> {
  say(vscode.l10n.t('Started a new session from the reviewed summary; your next @agent request continues it and names it. "{0}" stays whole in Sessions.', session.title));
  await continueHandoff(sessions, created, newChat);
  return created;
}
