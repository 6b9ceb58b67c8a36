// Context keys for `when` clauses (palette, menus, walkthrough): is there a session, a compaction, a branch, an endpoint, a key.
import * as vscode from 'vscode';
import { pathMarkers } from '../../core/context/pathMarkers';
import type { AgentSessions } from '../sessions/agentSessions';
import type { ApiKeyStore } from '../endpoint/apiKeyStore';
import type { EndpointConnection } from '../endpoint/endpointConnection';

/** Every key this module sets; the manifest's `when` clauses are tested against it. */
export const CONTEXT_KEYS = {
  hasSession: 'compactionAgent.hasSession',
  hasCompaction: 'compactionAgent.hasCompaction',
  hasBranches: 'compactionAgent.hasBranches',
  endpointConfigured: 'compactionAgent.endpointConfigured',
  hasApiKey: 'compactionAgent.hasApiKey',
} as const;

type KeyName = keyof typeof CONTEXT_KEYS;

/** A session's log changes a line at a time while the agent runs; re-read it once things settled. */
const SETTLE_MS = 150;

export class ContextKeys implements vscode.Disposable {
  private readonly values = new Map<KeyName, boolean>();
  private readonly subscriptions: vscode.Disposable[];
  private storedSessions = false;
  private timer: NodeJS.Timeout | undefined;
  private disposed = false;

  constructor(
    private readonly sessions: AgentSessions,
    private readonly endpoint: EndpointConnection,
    private readonly keys: ApiKeyStore,
  ) {
    this.subscriptions = [sessions.onDidChangeActive(() => this.scheduleSessionKeys()), endpoint.onDidChangeEndpoint(() => void this.updateEndpointKeys())];
    void this.updateEndpointKeys();
    this.updateSessionKeys();
    sessions.store.list().then(
      (records) => {
        this.storedSessions = records.length > 0;
        this.updateSessionKeys();
      },
      () => undefined,
    );
  }

  private scheduleSessionKeys(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.updateSessionKeys(), SETTLE_MS);
  }

  /**
   * Without an active session the palette commands open the most recent one, whose branches are not read until
   * then: while unknown, the commands stay offered (they say so when there is nothing to do).
   */
  private updateSessionKeys(): void {
    const session = this.sessions.active;
    if (!session) {
      this.set('hasSession', this.storedSessions);
      this.set('hasCompaction', this.storedSessions);
      this.set('hasBranches', this.storedSessions);
      return;
    }
    const tree = session.log.tree;
    this.set('hasSession', true);
    // From the markers kept per session and the tips counted as entries come: no walk of the session per change.
    this.set('hasCompaction', pathMarkers(session.log.path()).compaction !== null);
    this.set('hasBranches', tree.tipCount > 1);
  }

  private async updateEndpointKeys(): Promise<void> {
    this.set('endpointConfigured', this.endpoint.configured);
    this.set('hasApiKey', (await this.keys.get()) !== undefined);
  }

  private set(name: KeyName, value: boolean): void {
    if (this.disposed || this.values.get(name) === value) return;
    this.values.set(name, value);
    void vscode.commands.executeCommand('setContext', CONTEXT_KEYS[name], value);
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.timer);
    for (const subscription of this.subscriptions) subscription.dispose();
  }
}
