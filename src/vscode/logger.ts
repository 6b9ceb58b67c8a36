// The extension's log (an Output channel) with every known secret scrubbed from what it writes.
import * as vscode from 'vscode';

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  /** Reveals the log to the user. */
  show(): void;
}

export class OutputLogger implements Logger, vscode.Disposable {
  private readonly channel = vscode.window.createOutputChannel('Compaction Agent', { log: true });
  private readonly secrets = new Set<string>();

  /** Registers a secret (the API key) that must never reach the log. */
  addSecret(secret: string | undefined): void {
    if (secret && secret.length >= 4) this.secrets.add(secret);
  }

  info(message: string): void {
    this.channel.info(this.scrub(message));
  }

  warn(message: string): void {
    this.channel.warn(this.scrub(message));
  }

  error(message: string): void {
    this.channel.error(this.scrub(message));
  }

  show(): void {
    this.channel.show(true);
  }

  private scrub(message: string): string {
    let text = message;
    for (const secret of this.secrets) text = text.split(secret).join('[redacted]');
    return text;
  }

  dispose(): void {
    this.channel.dispose();
  }
}
