// Whether another vendor (Copilot, other extensions) offers a chat model: then @agent can use that one and the setup placeholder is not needed.
import * as vscode from 'vscode';
import type { Logger } from '../logger';

/** Model lists change in bursts while extensions start; check once they settled. */
const SETTLE_MS = 500;

export class OtherVendorModels implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly subscription: vscode.Disposable;
  private timer: NodeJS.Timeout | undefined;
  private checking = false;
  private checkAgain = false;
  private disposed = false;
  private present = false;

  /** Fires when `available` flips. */
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly ownVendor: string,
    private readonly logger: Logger,
  ) {
    this.subscription = vscode.lm.onDidChangeChatModels(() => this.schedule());
    this.schedule();
  }

  /** False until a check found another vendor's model. */
  get available(): boolean {
    return this.present;
  }

  private schedule(): void {
    if (this.disposed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.check(), SETTLE_MS);
  }

  /**
   * Never called from inside our provider: selecting all models resolves every vendor, ours included, and the
   * workbench resolves one vendor at a time. Only a flip fires, so our own change events cannot loop.
   */
  private async check(): Promise<void> {
    if (this.checking) {
      this.checkAgain = true;
      return;
    }
    this.checking = true;
    try {
      const models = await vscode.lm.selectChatModels();
      const present = models.some((model) => model.vendor !== this.ownVendor);
      if (present !== this.present && !this.disposed) {
        this.present = present;
        this.changed.fire();
      }
    } catch (error) {
      this.logger.warn(`Could not list VS Code's chat models: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      this.checking = false;
      if (this.checkAgain) {
        this.checkAgain = false;
        this.schedule();
      }
    }
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.timer);
    this.subscription.dispose();
    this.changed.dispose();
  }
}
