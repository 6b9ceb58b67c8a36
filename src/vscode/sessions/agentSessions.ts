// The window's sessions: opened on demand, one of them active (the one the status bar and panel show), remembered per window.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Configuration } from '../configuration';
import { AgentSession } from './agentSession';
import type { ModelRef } from '../endpoint/modelBinding';
import type { SessionStore } from './sessionStore';
import type { HeaderFields } from '../../core/session/sessionLog';
import { nodeFileIo } from '../../core/storage/fileIo';

const LAST_MODEL_KEY = 'lastModel';
/** After a reload the old extension host still holds the latest session's lock until it has exited: wait that long for it. */
const RELOAD_WAIT_MS = 15_000;

export class AgentSessions implements vscode.Disposable {
  private readonly sessions = new Map<string, Promise<AgentSession>>();
  private readonly changed = new vscode.EventEmitter<void>();
  private current: AgentSession | undefined;
  private currentSubscription: vscode.Disposable | undefined;
  private readonly settingsSubscription: vscode.Disposable;

  /** Fires when the active session changes or anything in it does. */
  readonly onDidChangeActive = this.changed.event;

  constructor(
    readonly store: SessionStore,
    private readonly memento: vscode.Memento,
    private readonly configuration: Configuration,
    /**
     * This window's own file (in its workspace storage, which VS Code gives one window at a time): the session this
     * window's chat continues, so a reload shows that one even while another window works on the same folder.
     */
    private readonly windowFile?: string,
  ) {
    this.settingsSubscription = configuration.onDidChangeSettings(() => this.changed.fire());
  }

  get active(): AgentSession | undefined {
    return this.current;
  }

  /** The model the user last chatted with, so palette commands can summarize without a chat request. */
  get lastModel(): ModelRef | undefined {
    return this.memento.get<ModelRef>(LAST_MODEL_KEY);
  }

  async rememberModel(ref: ModelRef): Promise<void> {
    await this.memento.update(LAST_MODEL_KEY, ref);
  }

  /**
   * A new session; `fields.parent` makes it a delegated sub-task's session, `fields.handoffFrom` a hand-off's.
   * `options.untitled`: `title` stands in until the first request names the session (/new, a hand-off).
   * `options.from`: the session it follows, whose model, window and request shape it is measured with until its own
   * first request (else the latest request's model), so the status bar and panel show it correctly from the start.
   */
  async create(title: string, fields: HeaderFields = {}, options: { untitled?: boolean; from?: AgentSession } = {}): Promise<AgentSession> {
    const { log, record } = await this.store.create(title, undefined, fields, options.untitled ?? false);
    const session = new AgentSession(log, record, await AgentSession.loadCounts(log), this.memento, this.configuration, options.from?.startFrom());
    this.sessions.set(session.id, Promise.resolve(session));
    return session;
  }

  /** Names an untitled session after its first request with words (see SessionStore.nameFromRequest). */
  async nameFromRequest(session: AgentSession, prompt: string): Promise<void> {
    const title = await this.store.nameFromRequest(session.id, prompt);
    if (title) session.retitle(title);
  }

  /** The person's new name for a session (Sessions… → Rename); an open session shows it at once. */
  async rename(id: string, title: string): Promise<void> {
    await this.store.touch(id, title);
    const opening = this.sessions.get(id);
    const session = opening ? await opening.catch(() => undefined) : undefined;
    session?.retitle(title);
  }

  /** Opens a session (see SessionStore.get); one open read-only here is read again, to show what its window wrote since. */
  async open(id: string): Promise<AgentSession | undefined> {
    let opening = this.sessions.get(id);
    const cached = opening ? await opening.catch(() => undefined) : undefined;
    if (cached?.log.readOnly && this.sessions.get(id) === opening) {
      this.sessions.delete(id);
      opening = undefined;
    }
    if (!opening) {
      opening = this.store.get(id).then(async (opened) => {
        if (!opened) throw new Error(vscode.l10n.t("Session {0} is not in this workspace's storage.", id));
        return new AgentSession(opened.log, this.store.record(id) ?? opened.record, await AgentSession.loadCounts(opened.log), this.memento, this.configuration);
      });
      this.sessions.set(id, opening);
      opening.catch(() => this.sessions.delete(id));
    }
    let session: AgentSession | undefined;
    try {
      session = await opening;
    } catch {
      return undefined;
    }
    // The window showed the earlier read of it: it shows the fresh one.
    if (cached && cached !== session && this.current === cached) this.activate(session);
    if (cached && cached !== session) cached.dispose();
    return session;
  }

  /** Deletes a session (see SessionStore.remove); when it was the active one, nothing is active afterwards. */
  async remove(id: string): Promise<void> {
    const opening = this.sessions.get(id);
    this.sessions.delete(id);
    const session = opening ? await opening.catch(() => undefined) : undefined;
    if (session && session === this.current) {
      this.currentSubscription?.dispose();
      this.currentSubscription = undefined;
      this.current = undefined;
      this.changed.fire();
    }
    await this.store.remove(id);
  }

  /** A session a hand-off started outside a chat: the next @agent request in a chat with no session of its own continues it. */
  private handedOff: AgentSession | undefined;

  /** Remembers the session a hand-off started, for the next new chat (see takeHandoff). */
  offerHandoff(session: AgentSession): void {
    this.handedOff = session;
  }

  /** The session a hand-off started and no chat continues yet, once. */
  takeHandoff(): AgentSession | undefined {
    const session = this.handedOff;
    this.handedOff = undefined;
    return session;
  }

  /** Makes a session the one the status bar and panel follow (its tokenizer starts loading, so it is measured at once). */
  activate(session: AgentSession): void {
    if (this.current === session) return;
    this.currentSubscription?.dispose();
    this.current = session;
    this.currentSubscription = session.onDidChange(() => this.changed.fire());
    void session.ensureCounter().catch(() => undefined);
    // A sub-task's session or one another window writes (shown read-only) is not what this window's chat continues.
    if (!session.record.parentId && !session.log.readOnly) void this.rememberForWindow(session.id);
    this.changed.fire();
  }

  /** The active session, else this window's own, else the latest no other window holds (for palette commands and the panel). */
  async activeOrLatest(): Promise<AgentSession | undefined> {
    if (this.current) return this.current;
    const id = await this.ownOrFree(0);
    const session = id ? await this.open(id) : undefined;
    if (session && !this.current) this.activate(session);
    return this.current ?? session;
  }

  /**
   * After a window reload (or on opening the workspace): the status bar and panel show the session this window's chat
   * continued before the reload (remembered per window), instead of "no session yet". Without one of its own, the
   * workspace's latest session, unless another window is working on this workspace: a session it holds is its chat's,
   * and this window's chat is a new one. Never a session another window holds.
   */
  async showLatest(): Promise<AgentSession | undefined> {
    if (this.current) return this.current;
    const id = await this.ownOrFree(RELOAD_WAIT_MS);
    const session = id ? await this.open(id) : undefined;
    if (session && !this.current && !session.log.readOnly) this.activate(session);
    return this.current;
  }

  /**
   * This window's own session when it can open it for writing (waiting up to `waitMs` for its previous extension host to
   * let go after a reload), else the latest top-level session when no other window holds any, else none.
   */
  private async ownOrFree(waitMs: number): Promise<string | undefined> {
    const records = (await this.store.list()).filter((record) => !record.parentId);
    const own = await this.windowSession();
    if (own && records.some((record) => record.id === own) && (await this.store.openIfFree(own, waitMs))) return own;
    const held = await this.store.heldElsewhere();
    if (held.size > 0) return undefined;
    const latest = records[0];
    return latest && (await this.store.openIfFree(latest.id, waitMs)) ? latest.id : undefined;
  }

  /** The session this window's chat continued last, as its window file says (none when it never had one). */
  private async windowSession(): Promise<string | undefined> {
    if (!this.windowFile) return undefined;
    try {
      const value: unknown = JSON.parse((await nodeFileIo.readFile(this.windowFile)).toString('utf8'));
      const id = typeof value === 'object' && value !== null ? (value as { sessionId?: unknown }).sessionId : undefined;
      return typeof id === 'string' ? id : undefined;
    } catch {
      return undefined;
    }
  }

  private async rememberForWindow(sessionId: string): Promise<void> {
    if (!this.windowFile) return;
    try {
      await nodeFileIo.mkdirp(path.dirname(this.windowFile));
      await nodeFileIo.writeFileAtomic(this.windowFile, JSON.stringify({ sessionId }));
    } catch {
      // Only the next reload's first guess depends on it.
    }
  }

  async dispose(): Promise<void> {
    this.currentSubscription?.dispose();
    this.settingsSubscription.dispose();
    this.changed.dispose();
    for (const opening of this.sessions.values()) {
      const session = await opening.catch(() => undefined);
      if (!session) continue;
      await session.save().catch(() => undefined);
      session.dispose();
    }
    await this.store.dispose();
  }
}
