// Restores as flows of the core: plan, take the session (SessionEngine.exclusive), plan again on what is current, apply.
import type { Checkpoint, RestoreItem, RestoreOutcome, RestorePort } from '../checkpoints/fileCheckpoints';
import { applyFileRestore, checkpoints, planFileRestore } from '../checkpoints/fileCheckpoints';
import type { CompactionProposal } from '../compaction/compaction';
import { returnToCompactionPoint, undoCompaction, type UndoResult } from '../compaction/compactionUndo';
import type { CompactionEntry, HandoffSource } from '../session/entries';
import type { SessionLog } from '../session/sessionLog';
import type { ConfirmStop, SessionEngine } from './sessionEngine';

/** What the flows need of a session: its log and the engine that owns what runs on it. */
export interface FlowSession {
  log: Pick<SessionLog, 'path' | 'tree' | 'append' | 'moveLeaf' | 'restoreBeforeCompaction' | 'leafId' | 'blobs'>;
  engine: SessionEngine<CompactionProposal>;
}

/** How files are put back: the workspace port (VS Code: undoable WorkspaceEdits) and the roots a write must stay in. */
export interface FileAccess {
  port: RestorePort;
  roots: readonly string[];
}

/**
 * Asked, with the session held, about files the second plan adds: the request that was stopped wrote them after the
 * first plan was shown. True restores them too (VS Code asks only when someone changed them since the agent did).
 */
export type ConfirmAdded = (items: readonly RestoreItem[]) => Promise<boolean>;

/** The parts of a restore that run with the session held; `whileApplying` wraps them (the panel shows "applying"). */
export interface RestoreOptions {
  files: FileAccess;
  confirmStop: ConfirmStop;
  confirmAdded: ConfirmAdded;
  whileApplying?: <T>(work: () => Promise<T>) => Promise<T>;
}

/** What a file restore did after the second plan: what it put back, what failed, and what that plan added or left out. */
export interface FilesRestored extends RestoreOutcome {
  /** Files the stopped request changed after the first plan (restored, unless in `declined`). */
  added: string[];
  /** Of those, the ones the person chose to keep as they are. */
  declined: string[];
}

/** Restores the second plan's items: the added ones after asking, each failure named, recorded on the current branch. */
async function restoreFiles(session: FlowSession, targetId: string, planned: readonly RestoreItem[], current: readonly RestoreItem[], options: RestoreOptions): Promise<FilesRestored> {
  const before = new Map(planned.map((item) => [item.absolute, item] as const));
  const added = current.filter((item) => !before.has(item.absolute));
  const keep = added.length > 0 && !(await options.confirmAdded(added)) ? new Set(added.map((item) => item.absolute)) : new Set<string>();
  // The person's answer about files changed since the agent wrote them was given on the first plan: it holds for the same file now.
  const items = current.filter((item) => !keep.has(item.absolute)).map((item) => {
    const answered = before.get(item.absolute)?.replaceChanged;
    return answered === undefined || item.replaceChanged !== undefined ? item : { ...item, replaceChanged: answered };
  });
  const outcome = await applyFileRestore(items, options.files.port, session.log.blobs, options.files.roots);
  if (outcome.changes.length > 0) await session.log.append({ type: 'fileRestore', targetId, changes: outcome.changes });
  return { ...outcome, added: added.map((item) => item.path), declined: added.filter((item) => keep.has(item.absolute)).map((item) => item.path) };
}

/**
 * The second plan, made with the session held: the files to restore to before `entryId` on the branch as it is now.
 * Throws, naming `what`, when that point is no longer on this branch (a branch switch while the person chose).
 */
function planAgain(session: FlowSession, entryId: string, what: string): RestoreItem[] {
  const current = planFileRestore(session.log.path(), entryId, session.log.tree.entries);
  if (!current) throw new Error(`That ${what} is no longer on this branch of the session; nothing was restored.`);
  return current;
}

// ─── Restore Checkpoint: the files, the conversation or both, back to before a request ───

export type CheckpointMode = 'both' | 'files' | 'conversation';

/** Step 1: what restoring to before a checkpoint would put back, and the modes that make sense there. */
export interface CheckpointPlan {
  point: Checkpoint;
  items: RestoreItem[];
  modes: CheckpointMode[];
}

/** The plan for the checkpoint at `entryId` on the current branch; undefined when it is not one. */
export function planCheckpointRestore(log: FlowSession['log'], entryId: string): CheckpointPlan | undefined {
  const point = checkpoints(log.path()).find((candidate) => candidate.entryId === entryId);
  if (!point) return undefined;
  const items = planFileRestore(log.path(), entryId, log.tree.entries) ?? [];
  const conversation = point.kind === 'request' && point.conversation;
  const modes: CheckpointMode[] = [];
  if (conversation && items.length > 0) modes.push('both');
  if (items.length > 0) modes.push('files');
  if (conversation) modes.push('conversation');
  return { point, items, modes };
}

export interface CheckpointRestored {
  /** The conversation continues from before the request (a new branch there; later turns stay on theirs). */
  conversation: boolean;
  /** Null when the files were not asked for. */
  files: FilesRestored | null;
}

/**
 * Steps 2–4: takes the session (a running request is stopped after `confirmStop`, and waited for), plans again on
 * the branch as it is now (the stopped request may have changed more files since the plan was shown), then moves
 * the conversation and puts the files back. Undefined when the person kept the request running.
 */
export async function restoreCheckpoint(session: FlowSession, plan: CheckpointPlan, mode: CheckpointMode, options: RestoreOptions): Promise<CheckpointRestored | undefined> {
  const wrap = options.whileApplying ?? ((work) => work());
  return session.engine.exclusive(
    'restoring a checkpoint',
    () =>
      wrap(async () => {
        const current = planAgain(session, plan.point.entryId, 'checkpoint');
        const conversation = mode !== 'files';
        // The conversation moves first, so the file restore is recorded on the branch that continues.
        if (conversation) {
          const parent = session.log.tree.parentOfNode(plan.point.entryId);
          if (!parent) throw new Error('That is the first request of the session: start a new chat (@agent /new) instead.');
          await session.log.moveLeaf(parent.id, 'switch');
        }
        const files = mode === 'conversation' ? null : await restoreFiles(session, plan.point.entryId, plan.items, current, options);
        return { conversation, files };
      }),
    options.confirmStop,
  );
}

// ─── Restore Pre-Compaction Branch: undo a compaction, with or without the files ───

/** Step 1: the compaction, the session it was handed off from (nothing to restore there), and the files changed since. */
export interface CompactionRestorePlan {
  compaction: CompactionEntry;
  handoffFrom?: HandoffSource;
  items: RestoreItem[];
}

export function planCompactionRestore(log: FlowSession['log'], compactionId: string): CompactionRestorePlan {
  const compaction = log.tree.get(compactionId);
  if (compaction?.type !== 'compaction') throw new Error('That is not a compaction of this session; nothing was restored.');
  return { compaction, ...(compaction.handoffFrom ? { handoffFrom: compaction.handoffFrom } : {}), items: planFileRestore(log.path(), compactionId, log.tree.entries) ?? [] };
}

export type CompactionRestored = ({ mode: 'conversation' } & UndoResult) | { mode: 'files'; files: FilesRestored };

/**
 * Steps 2–4: takes the session, then either brings every later turn back after the full history (conversation), or
 * goes back to the point of the compaction with the files as they were then, planned again on what is current.
 * Undefined when the person kept the running request.
 */
export async function restoreBeforeCompaction(session: FlowSession, plan: CompactionRestorePlan, mode: 'conversation' | 'files', options: RestoreOptions): Promise<CompactionRestored | undefined> {
  const wrap = options.whileApplying ?? ((work) => work());
  const id = plan.compaction.id;
  return session.engine.exclusive(
    'restoring the branch before that compaction',
    () =>
      wrap(async (): Promise<CompactionRestored> => {
        if (mode === 'conversation') return { mode, ...(await undoCompaction(session.log, id)) };
        const current = planAgain(session, id, 'compaction');
        await returnToCompactionPoint(session.log, id);
        return { mode, files: await restoreFiles(session, id, plan.items, current, options) };
      }),
    options.confirmStop,
  );
}
