// Dropping parts of the context from the chat (/drop), the palette and its confirm button: measured first, applied through the session engine.
import * as vscode from 'vscode';
import { applyDrop, previewDrop, previewUndo, targetEntryIds, type DropPreview } from '../../core/agent/dropRunner';
import { parseDropTarget } from '../../core/context/contextDrops';
import { contextTurns } from '../../core/context/contextTurns';
import type { DropEntry } from '../../core/session/entries';
import { dropListing, toDropPreviewView } from '../../core/views/dropView';
import { formatTokens } from '../../shared/budgetFormat';
import type { DropPreviewView } from '../../shared/panelViewModels';
import type { AgentSession } from '../sessions/agentSession';
import type { AgentSessions } from '../sessions/agentSessions';
import { confirmStopRequest } from '../sessions/stopRequestConfirmation';
import { boundedPick } from '../boundedPick';

/** The confirm button's argument: what to drop, on which session, measured on which leaf. */
export interface DropRequest {
  sessionId: string;
  entryIds: string[];
  label: string;
  leafId: string | null;
}

export const DROP_COMMAND = 'compactionAgent.dropFromContext';

function isDropRequest(value: unknown): value is DropRequest {
  if (typeof value !== 'object' || value === null) return false;
  const fields = value as Record<string, unknown>;
  return (
    typeof fields.sessionId === 'string' &&
    Array.isArray(fields.entryIds) &&
    fields.entryIds.every((id) => typeof id === 'string') &&
    typeof fields.label === 'string' &&
    (fields.leafId === null || typeof fields.leafId === 'string')
  );
}

/** "frees ~3.4k tokens (12.1k → 8.7k of 100k usable)": the meter's figures of a preview. */
export function describeEffect(preview: DropPreview): string {
  const figures = [formatTokens(preview.tokens), formatTokens(preview.usedBefore), formatTokens(preview.usedAfter), formatTokens(preview.usable)];
  return preview.dropped ? vscode.l10n.t('frees ~{0} tokens ({1} → {2} of {3} usable)', ...figures) : vscode.l10n.t('brings back ~{0} tokens ({1} → {2} of {3} usable)', ...figures);
}

/** Measures the session's counting deps (loads the tokenizer when needed). */
async function countingDeps(session: AgentSession): Promise<NonNullable<ReturnType<AgentSession['deps']>>> {
  await session.ensureCounter();
  const deps = session.deps();
  if (!deps) throw new Error('The tokenizer could not be loaded, so the drop cannot be measured.');
  return deps;
}

/** Appends the drop through the session engine (a running request is stopped first, after asking). */
export async function applyDropExclusively(session: AgentSession, preview: DropPreview): Promise<DropEntry | undefined> {
  return session.engine.exclusive(preview.dropped ? 'dropping from the context' : 'bringing back dropped messages', () => applyDrop(session.log, preview), confirmStopRequest);
}

/** A drop named like /drop's argument, measured for the panel: a preview, or why there is none. */
export async function measureDropTarget(session: AgentSession, text: string): Promise<DropPreview | { error: string }> {
  const path = session.log.path();
  const target = parseDropTarget(text, contextTurns(path));
  if ('error' in target) return target;
  if (target.kind === 'list') return { error: vscode.l10n.t('Name the turns to drop: a number (3), a range (2-4) or a tool step (3.2).') };
  const deps = await countingDeps(session);
  if (target.kind === 'undo') return previewUndo(path, deps, session.log.leafId) ?? { error: vscode.l10n.t('Nothing is dropped on this branch of the session, so there is nothing to undo.') };
  const chosen = targetEntryIds(path, target);
  if ('error' in chosen) return chosen;
  return previewDrop(path, { entryIds: chosen.entryIds, dropped: true, label: chosen.label }, deps, session.log.leafId);
}

/** What a confirmed drop did, in one sentence for the chat and the panel. */
export function dropDone(entry: DropEntry): string {
  return entry.dropped
    ? vscode.l10n.t('Dropped {0} from the context: {1} tokens freed. "/drop undo" brings it back.', entry.label, formatTokens(entry.tokens))
    : vscode.l10n.t('Brought back {0}: {1} tokens are in the context again.', entry.label, formatTokens(entry.tokens));
}

/** /drop [what]: lists the turns, or measures a drop and offers a button to confirm it, or undoes the latest drop. */
export async function dropChatCommand(session: AgentSession, prompt: string, stream: vscode.ChatResponseStream): Promise<void> {
  const path = session.log.path();
  const turns = contextTurns(path);
  const target = parseDropTarget(prompt, turns);
  if ('error' in target) {
    stream.markdown(vscode.l10n.t('{0} Nothing was dropped.', target.error));
    return;
  }
  if (target.kind === 'list') {
    stream.markdown(dropListing(turns));
    return;
  }
  const deps = await countingDeps(session);
  if (target.kind === 'undo') {
    const undo = previewUndo(path, deps, session.log.leafId);
    if (!undo) {
      stream.markdown(vscode.l10n.t('Nothing is dropped on this branch of the session, so there is nothing to undo.'));
      return;
    }
    // Inside this request: the session engine already holds the session for it.
    await applyDrop(session.log, undo);
    stream.markdown(vscode.l10n.t('Brought back {0}: it {1}.', undo.label, describeEffect(undo)));
    return;
  }
  const chosen = targetEntryIds(path, target);
  if ('error' in chosen) {
    stream.markdown(chosen.error);
    return;
  }
  const preview = previewDrop(path, { entryIds: chosen.entryIds, dropped: true, label: chosen.label }, deps, session.log.leafId);
  stream.markdown(vscode.l10n.t('Dropping {0} {1}. Nothing is deleted: it stays in the session and `/drop undo` brings it back. Confirm with the button.', chosen.label, describeEffect(preview)));
  const request: DropRequest = { sessionId: session.id, entryIds: preview.entryIds, label: preview.label, leafId: preview.leafId };
  stream.button({ command: DROP_COMMAND, title: vscode.l10n.t('Drop'), arguments: [request] });
}

/** The confirm button (with its request) or the palette (without: pick a turn or step, then confirm). */
export async function dropFromContextCommand(sessions: AgentSessions, argument: unknown): Promise<string | undefined> {
  const session = isDropRequest(argument) ? await sessions.open(argument.sessionId) : await sessions.activeOrLatest();
  if (!session) return vscode.l10n.t('No @agent session to drop from: send a message to @agent in the Chat view first.');
  const deps = await countingDeps(session);
  const path = session.log.path();
  let preview: DropPreview;
  if (isDropRequest(argument)) {
    if (argument.leafId !== session.log.leafId) return vscode.l10n.t('The session changed since this drop was measured; nothing was dropped. Run /drop again.');
    preview = previewDrop(path, { entryIds: argument.entryIds, dropped: true, label: argument.label }, deps, session.log.leafId);
  } else {
    // Turn 1 first, as /drop numbers them: the newest are kept when there are more than a pick holds.
    const turns = contextTurns(path);
    const items = turns.flatMap((turn) => [
      ...(turn.dropped ? [] : [{ label: `${turn.number}. ${turn.request}`, description: vscode.l10n.t('{0} messages', turn.entryIds.length), target: { kind: 'turns' as const, from: turn.number, to: turn.number } }]),
      ...turn.steps.filter((step) => !step.dropped).map((step) => ({ label: `    ${step.number} ${step.tools}`, description: vscode.l10n.t('{0} messages', step.entryIds.length), target: { kind: 'step' as const, number: step.number } })),
    ]);
    if (items.length === 0) return vscode.l10n.t('There is nothing in the context to drop.');
    const pick = boundedPick(items, vscode.l10n.t('Drop from Context'), 'last');
    const picked = await vscode.window.showQuickPick(pick.items, { title: pick.title, placeHolder: vscode.l10n.t('Pick a turn, or one tool step with its results, to take out of what the model sees') });
    if (!picked) return undefined;
    const chosen = targetEntryIds(path, picked.target);
    if ('error' in chosen) return chosen.error;
    preview = previewDrop(path, { entryIds: chosen.entryIds, dropped: true, label: chosen.label }, deps, session.log.leafId);
    const drop = vscode.l10n.t('Drop');
    const answer = await vscode.window.showWarningMessage(vscode.l10n.t('Drop {0}?', chosen.label), { modal: true, detail: vscode.l10n.t('It {0}. Nothing is deleted; "/drop undo" brings it back.', describeEffect(preview)) }, drop);
    if (answer !== drop) return undefined;
  }
  const entry = await applyDropExclusively(session, preview);
  if (!entry) return undefined;
  const message = dropDone(entry);
  session.noteForChat(message);
  return message;
}

/** The panel's measured drop waiting for Drop or Cancel: one at a time, shown only on the session and leaf it was measured on. */
export class PanelDrop {
  private pending: { id: string; session: AgentSession; preview: DropPreview } | undefined;
  private count = 0;

  /** Measures a drop named like /drop's argument; the error when it names nothing that can be dropped. */
  async preview(session: AgentSession, target: string): Promise<string | undefined> {
    const measured = await measureDropTarget(session, target);
    this.pending = 'error' in measured ? undefined : { id: `drop-${++this.count}`, session, preview: measured };
    return 'error' in measured ? `${measured.error} Nothing was dropped.` : undefined;
  }

  /** Applies the drop `id` through the session engine; what happened, in one sentence. */
  async confirm(id: string): Promise<string> {
    const drop = this.pending;
    if (!drop || drop.id !== id) throw new Error('That drop is no longer current; choose it again.');
    this.pending = undefined;
    const entry = await applyDropExclusively(drop.session, drop.preview);
    if (!entry) return 'Nothing was dropped.';
    const message = dropDone(entry);
    drop.session.noteForChat(message);
    return message;
  }

  cancel(id: string): void {
    if (this.pending?.id === id) this.pending = undefined;
  }

  viewFor(session: AgentSession): DropPreviewView | undefined {
    const drop = this.pending;
    return drop && drop.session === session && drop.preview.leafId === session.log.leafId ? toDropPreviewView(drop.id, drop.preview) : undefined;
  }
}
