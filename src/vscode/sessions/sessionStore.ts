// The workspace's sessions in the folder every window on it shares: indexed, opened with a lock, mapped to chat threads.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { importPiFile } from '../../core/import/piImport';
import { confinedSessionFile } from '../../core/session/sessionFiles';
import { SessionIndexStore, type SessionRecord } from '../../core/session/sessionIndex';
import { SessionLog, type HeaderFields } from '../../core/session/sessionLog';
import { titleFromRequest } from '../../core/session/sessionTitle';
import { collectUnreferencedBlobs, type BlobCollection } from '../../core/storage/blobCollector';
import { nodeFileIo } from '../../core/storage/fileIo';
import { isLockHeld, SessionLockedError } from '../../core/storage/sessionLock';
import type { Logger } from '../logger';
import { moveEarlierSessions, type SessionStorage } from './sessionStorage';
import { trashSessionFiles } from './sessionTrash';

/** How long an open waits for another holder of a session's lock to let go (a reloaded window's old host closes it on exit). */
const LOCK_WAIT_MS = 2_500;
const LOCK_RETRY_MS = 250;

export interface OpenedSession {
  log: SessionLog;
  record: SessionRecord;
}

export class SessionStore implements vscode.Disposable {
  private readonly index: SessionIndexStore;
  private readonly open = new Map<string, Promise<OpenedSession>>();
  private loaded: Promise<void> | undefined;
  /** What the last delete freed in the blob store (snapshots, images, large outputs no other session names). */
  lastCollection: BlobCollection | undefined;
  /** The folder whose `sessions/` this store keeps. */
  readonly root: string;
  private readonly storage: SessionStorage;

  /** `storage`: where the workspace's sessions live and lived before (see sessionStorage.ts); a bare path has no earlier home. */
  constructor(
    storage: string | SessionStorage,
    private readonly logger: Logger,
  ) {
    this.storage = typeof storage === 'string' ? { root: storage, legacyRoots: [], windowFile: undefined, identity: undefined } : storage;
    this.root = this.storage.root;
    this.index = new SessionIndexStore(path.join(this.root, 'sessions'), nodeFileIo);
  }

  get sessionsDir(): string {
    return path.join(this.root, 'sessions');
  }

  /** Sessions of this workspace, most recently used first. */
  async list(): Promise<SessionRecord[]> {
    await this.ensureLoaded();
    await this.index.refresh();
    return this.index.list();
  }

  private ensureLoaded(): Promise<void> {
    this.loaded ??= moveEarlierSessions(this.storage, this.sessionsDir, this.logger).then(() => this.index.load()).then(({ warnings }) => this.report(warnings, vscode.l10n.t('the session index')));
    return this.loaded;
  }

  /**
   * Sessions another window holds open (a live lock this window does not hold): they are that window's, and this
   * window neither shows them as its own nor opens them for writing.
   */
  async heldElsewhere(): Promise<Set<string>> {
    await this.ensureLoaded();
    const locks = new Set((await nodeFileIo.readdir(this.sessionsDir).catch(() => [] as string[])).filter((name) => name.endsWith('.lock')));
    const held = new Set<string>();
    for (const record of this.index.list()) {
      const lock = record.file.replace(/\.jsonl$/, '.lock');
      if (!locks.has(lock) || this.open.has(record.id)) continue;
      if (await isLockHeld(path.join(this.sessionsDir, lock), nodeFileIo).catch(() => true)) held.add(record.id);
    }
    return held;
  }

  /**
   * Creates a new, empty session and keeps it open for writing; `fields.parent` links a delegated sub-task's session
   * to its parent's, `fields.handoffFrom` a hand-off's to its source. An `untitled` session shows `title` until its
   * first request names it (see nameFromRequest); its log header carries no title, so a rebuilt index names it the same way.
   */
  async create(title: string, threadKey?: string, fields: HeaderFields = {}, untitled = false): Promise<OpenedSession> {
    await this.ensureLoaded();
    const log = await SessionLog.create(path.join(this.sessionsDir, `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}.jsonl`), untitled ? fields : { ...fields, title });
    const now = new Date().toISOString();
    const record: SessionRecord = {
      id: log.header.id,
      title,
      file: path.basename(log.file),
      createdAt: now,
      updatedAt: now,
      ...(threadKey ? { threadKey } : {}),
      ...(fields.parent ? { parentId: fields.parent.sessionId } : {}),
      ...(fields.handoffFrom ? { handoffFrom: fields.handoffFrom.sessionId } : {}),
      ...(untitled ? { untitled: true } : {}),
    };
    await this.index.upsert(record);
    const opened = { log, record };
    this.open.set(record.id, Promise.resolve(opened));
    return opened;
  }

  /**
   * Opens a session for writing. When another window holds it, it opens read-only and says so: the other
   * window keeps writing, nothing is lost, and this window can still show it. A session open read-only here is read
   * again, so it shows what the other window wrote since (and is writable once that window let it go).
   */
  async get(id: string): Promise<OpenedSession | undefined> {
    await this.ensureLoaded();
    const record = this.index.get(id);
    if (!record) return undefined;
    let opening = this.open.get(id);
    let again = false;
    if (opening) {
      const opened = await opening.catch(() => undefined);
      if (opened?.log.readOnly && this.open.get(id) === opening) {
        this.open.delete(id);
        await opened.log.close().catch(() => undefined);
        again = true;
      }
      opening = this.open.get(id);
    }
    if (!opening) {
      opening = this.openLog(record, again);
      this.open.set(id, opening);
      opening.catch(() => this.open.delete(id));
    }
    return opening;
  }

  /**
   * Opens a session for writing only when no other window holds it (nothing is shown either way), waiting up to
   * `waitMs` for a holder to let go; true when this window has it open for writing now. For showing the latest
   * session at startup without taking another window's: after a reload the old extension host may still hold it
   * for a moment.
   */
  async openIfFree(id: string, waitMs = 0): Promise<boolean> {
    await this.ensureLoaded();
    const record = this.index.get(id);
    if (!record) return false;
    const deadline = Date.now() + waitMs;
    for (;;) {
      const open = this.open.get(id);
      if (open) return open.then(({ log }) => !log.readOnly, () => false);
      try {
        const { log, warnings } = await SessionLog.open(this.filePath(record));
        if (this.open.has(id)) {
          await log.close();
          continue;
        }
        this.report(warnings, vscode.l10n.t('session "{0}"', record.title));
        this.open.set(id, Promise.resolve({ log, record }));
        return true;
      } catch (error) {
        if (!(error instanceof SessionLockedError)) {
          this.logger.warn(`session "${record.title}" could not be opened: ${error instanceof Error ? error.message : String(error)}`);
          return false;
        }
        if (Date.now() >= deadline) return false;
        await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
      }
    }
  }

  /**
   * Opens for writing; a lock another window holds is tried again for a moment (a reload's old host letting go), then
   * read-only. `again`: a read-only session read afresh, whose holder the person was told of already (no wait, no message).
   */
  private async openLog(record: SessionRecord, again = false): Promise<OpenedSession> {
    const file = this.filePath(record);
    const deadline = again ? 0 : Date.now() + LOCK_WAIT_MS;
    for (;;) {
      try {
        const { log, warnings } = await SessionLog.open(file);
        this.report(warnings, vscode.l10n.t('session "{0}"', record.title));
        return { log, record };
      } catch (error) {
        if (!(error instanceof SessionLockedError)) throw error;
        if (Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
          continue;
        }
        if (!again) {
          void vscode.window.showWarningMessage(
            vscode.l10n.t('Compaction Agent: {0}. It is shown read-only here; continue it in that window or close it there.', error.message),
          );
        }
        const { log, warnings } = await SessionLog.open(file, { readOnly: true });
        this.report(warnings, vscode.l10n.t('session "{0}"', record.title));
        return { log, record };
      }
    }
  }

  /** Imports a pi-coding-agent session file as a new session of this workspace; returns its record. */
  async importPi(inFile: string): Promise<{ record: SessionRecord; warnings: string[] }> {
    await this.ensureLoaded();
    const file = path.join(this.sessionsDir, `${Date.now().toString(36)}-import.jsonl`);
    const result = await importPiFile(inFile, file);
    const now = new Date().toISOString();
    const record: SessionRecord = {
      id: result.header.id,
      title: `Imported: ${path.basename(inFile, '.jsonl')}`,
      file: path.basename(file),
      createdAt: now,
      updatedAt: now,
    };
    await this.index.upsert(record);
    return { record, warnings: result.warnings };
  }

  /** Where a session's log lives: always a log file in the sessions folder (throws for a record naming anything else). */
  filePath(record: SessionRecord): string {
    return confinedSessionFile(this.sessionsDir, record.file);
  }

  /**
   * Closes the session if open, drops it from the index, and moves its log (and quarantine file) to the trash,
   * or, where there is none, into `sessions/deleted/`: a deletion the person can still undo by hand.
   */
  async remove(id: string): Promise<void> {
    await this.ensureLoaded();
    const record = this.index.get(id);
    if (!record) return;
    const logFile = this.filePath(record);
    const opening = this.open.get(id);
    this.open.delete(id);
    if (opening) await (await opening).log.close();
    await this.index.remove(id);
    await trashSessionFiles(this.sessionsDir, logFile);
    await this.collectBlobs();
  }

  /** Removes the blobs no session (nor checkpoint index) refers to any more; a failure is logged, never fails the delete. */
  async collectBlobs(): Promise<void> {
    this.lastCollection = undefined;
    try {
      this.lastCollection = await collectUnreferencedBlobs(nodeFileIo, this.sessionsDir, path.join(this.sessionsDir, 'blobs'));
      this.logger.info(`blob store: removed ${this.lastCollection.removed} blobs no session refers to (${this.lastCollection.bytesFreed} bytes), kept ${this.lastCollection.kept}`);
    } catch (error) {
      this.logger.warn(`blob store: could not remove unused blobs: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Records activity (and an optional new title, the person's: the session is no longer untitled) in the index. */
  async touch(id: string, title?: string): Promise<void> {
    const record = this.index.get(id);
    if (!record) return;
    const { untitled: _untitled, ...titled } = record;
    await this.index.upsert({ ...(title ? { ...titled, title } : record), updatedAt: new Date().toISOString() });
  }

  /** The record as the index has it now (titles change: a first request names a session, the person renames one). */
  record(id: string): SessionRecord | undefined {
    return this.index.get(id);
  }

  /** Names an untitled session after its first request with words; returns the new title, or undefined when it kept its own. */
  async nameFromRequest(id: string, prompt: string): Promise<string | undefined> {
    const record = this.index.get(id);
    const title = titleFromRequest(prompt);
    if (!record?.untitled || !title) return undefined;
    const { untitled: _untitled, ...titled } = record;
    await this.index.upsert({ ...titled, title, updatedAt: new Date().toISOString() });
    return title;
  }

  private report(warnings: string[], what: string): void {
    if (warnings.length === 0) return;
    for (const warning of warnings) this.logger.warn(`${what}: ${warning}`);
    void vscode.window
      .showWarningMessage(
        warnings.length > 1
          ? vscode.l10n.t('Compaction Agent repaired {0}: {1} (and {2} more). Damaged lines were kept in a quarantine file beside it; nothing valid was lost.', what, warnings[0] ?? '', warnings.length - 1)
          : vscode.l10n.t('Compaction Agent repaired {0}: {1}. Damaged lines were kept in a quarantine file beside it; nothing valid was lost.', what, warnings[0] ?? ''),
        vscode.l10n.t('Show Log'),
      )
      .then((choice) => {
        if (choice) this.logger.show();
      });
  }

  async dispose(): Promise<void> {
    const all = [...this.open.values()];
    this.open.clear();
    for (const opening of all) {
      try {
        await (await opening).log.close();
      } catch {
        // Closing releases the lock; a session that failed to open holds none.
      }
    }
  }
}
