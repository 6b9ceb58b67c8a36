// The window's sessions: opened on demand, one of them active (the one the status bar and panel show).
import * as vscode from 'vscode';
import type { Configuration } from '../configuration';
import { AgentSession } from './agentSession';
import type { ModelRef } from '../endpoint/modelBinding';
import type { SessionStore } from './sessionStore';
import type { HeaderFields } from '../../core/session/sessionLog';

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

  async open(id: string): Promise<AgentSession | undefined> {
    let opening = this.sessions.get(id);
    if (!opening) {
      opening = this.store.get(id).then(async (opened) => {
        if (!opened) throw new Error(vscode.l10n.t("Session {0} is not in this workspace's storage.", id));
        return new AgentSession(opened.log, this.store.record(id) ?? opened.record, await AgentSession.loadCounts(opened.log), this.memento, this.configuration);
      });
      this.sessions.set(id, opening);
      opening.catch(() => this.sessions.delete(id));
    }
    try {
      return await opening;
    } catch {
      return undefined;
    }
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
    this.changed.fire();
  }

  /** The active session, else the most recently used one in this workspace (for palette commands). */
  async activeOrLatest(): Promise<AgentSession | undefined> {
    if (this.current) return this.current;
    const latest = (await this.store.list()).find((record) => !record.parentId);
    const session = latest ? await this.open(latest.id) : undefined;
    if (session && !this.current) this.activate(session);
    return this.current ?? session;
  }

  /**
   * After a window reload (or on opening the workspace): the status bar and panel show the workspace's latest
   * session, the one the restored chat most likely continues, instead of "no session yet". A session another
   * window holds is left to it (opening it here would warn and stay read-only); the next request decides then.
   */
  async showLatest(): Promise<AgentSession | undefined> {
    if (this.current) return this.current;
    const latest = (await this.store.list()).find((record) => !record.parentId);
    if (!latest || !(await this.store.openIfFree(latest.id, RELOAD_WAIT_MS))) return this.current;
    return this.activeOrLatest();
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
