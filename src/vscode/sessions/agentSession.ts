// One open session and what its budget needs: the token counter for its model, cached counts and calibration.
import * as vscode from 'vscode';
import { buildSystemPrompt } from '../../core/agent/systemPrompt';
import { Calibration } from '../../core/budget/calibration';
import type { CountingDeps, MeasuredContext } from '../../core/budget/meter';
import { measureContext } from '../../core/budget/meter';
import { SessionEngine } from '../../core/agent/sessionEngine';
import type { CompactionProposal } from '../../core/compaction/compaction';
import { windowIsKnown } from '../../core/llm/contextWindow';
import type { ChatToolDefinition } from '../../core/context/chatMessage';
import type { SessionLog } from '../../core/session/sessionLog';
import type { SessionRecord } from '../../core/session/sessionIndex';
import { nodeFileIo } from '../../core/storage/fileIo';
import { CountCacheFile } from '../../core/tokens/countCacheFile';
import { TokenCounter } from '../../core/tokens/tokenCounter';
import { ToolRegistry } from '../../core/tools/toolRegistry';
import { toBudgetView } from '../../core/views/budgetView';
import type { BudgetView } from '../../shared/panelViewModels';
import { budgetLevel } from '../../shared/budgetFormat';
import type { Configuration } from '../configuration';
import { startingModel } from './startingModel';
import type { ModelChoice } from '../endpoint/modelBinding';

/** The model a session is measured against. */

/** The model (and its window) the latest request was measured against: a session opened or started later starts from it. */
const LAST_CHOICE_KEY = 'lastModelChoice';

/** What a session is measured with before its own first request: the session it came from, else the latest request's model. */
export interface SessionStart {
  model?: ModelChoice;
  tools?: ChatToolDefinition[];
  systemPrompt?: string;
}

export class AgentSession implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly stopListening: () => void;
  private counter: TokenCounter | undefined;
  private counterLoading: Promise<TokenCounter> | undefined;
  private loadingModel: string | undefined;
  private calibration: Calibration;
  private notes: string[] = [];
  private currentTitle: string;
  private readonly stopEngineListening: () => void;
  /** Owns what this session is doing: the running request, the review that waits, a restore under way. */
  readonly engine = new SessionEngine<CompactionProposal>();
  model: ModelChoice;
  tools: ChatToolDefinition[];
  systemPrompt: string;

  /** Fires after anything that changes what the status bar and panel show. */
  readonly onDidChange = this.changed.event;

  constructor(
    readonly log: SessionLog,
    readonly record: SessionRecord,
    private readonly counts: CountCacheFile,
    private readonly memento: vscode.Memento,
    private readonly configuration: Configuration,
    start: SessionStart = {},
  ) {
    this.currentTitle = record.title;
    this.model = startingModel(configuration.settings, start.model, memento.get(LAST_CHOICE_KEY));
    this.calibration = this.loadCalibration(this.model.id);
    const registry = new ToolRegistry();
    this.tools = start.tools ?? registry.definitions();
    this.systemPrompt = start.systemPrompt ?? buildSystemPrompt({ toolNames: registry.names(), workspaceRoots: workspaceRoots() });
    this.stopListening = log.onAppend(() => this.changed.fire());
    this.stopEngineListening = this.engine.onDidChange(() => this.changed.fire());
  }

  /** Opens the persisted count cache beside the log (a missing or damaged one restores what it can). */
  static loadCounts(log: SessionLog): Promise<CountCacheFile> {
    return CountCacheFile.load(nodeFileIo, countsFile(log));
  }

  get id(): string {
    return this.log.header.id;
  }

  get title(): string {
    return this.currentTitle;
  }

  /** The session a hand-off started this one from, if it was. */
  get handoffFrom(): string | undefined {
    return this.record.handoffFrom;
  }

  /** A new title (the first request named the session, or the person renamed it). */
  retitle(title: string): void {
    if (title === this.currentTitle) return;
    this.currentTitle = title;
    this.changed.fire();
  }

  /** What a session started from this one is measured with until its own first request (see SessionStart). */
  startFrom(): SessionStart {
    return { model: this.model, tools: this.tools, systemPrompt: this.systemPrompt };
  }

  /** Measures against this model from now on (loads its tokenizer lazily); sessions opened later start from it too. */
  async useModel(choice: ModelChoice): Promise<TokenCounter> {
    if (choice.id !== this.model.id) this.calibration = this.loadCalibration(choice.id);
    this.model = choice;
    void Promise.resolve(this.memento.update(LAST_CHOICE_KEY, choice)).catch(() => undefined);
    const counter = await this.ensureCounter();
    this.changed.fire();
    return counter;
  }

  /** Tools and system prompt of the latest request, so idle measurements match what the next call sends. */
  useRequestShape(tools: ChatToolDefinition[], systemPrompt: string): void {
    this.tools = tools;
    this.systemPrompt = systemPrompt;
  }

  async ensureCounter(): Promise<TokenCounter> {
    if (this.counter?.modelId === this.model.id) return this.counter;
    if (this.counterLoading && this.loadingModel === this.model.id) return this.counterLoading;
    const modelId = this.model.id;
    this.loadingModel = modelId;
    this.counterLoading = TokenCounter.create(modelId).then((counter) => {
      if (this.model.id === modelId) {
        this.counter = counter;
        // What the status bar and panel showed as "counting" can be measured now.
        this.changed.fire();
      }
      return counter;
    });
    // A tokenizer that failed to load is tried again by the next caller.
    this.counterLoading.catch(() => {
      if (this.loadingModel === modelId) this.loadingModel = undefined;
    });
    return this.counterLoading;
  }

  /** Everything the core needs to count this session; undefined until the tokenizer has loaded. */
  deps(): CountingDeps | undefined {
    if (!this.counter) return undefined;
    return {
      counter: this.counter,
      cache: this.counts.cache,
      calibration: this.calibration,
      settings: this.configuration.settings,
      contextWindow: this.model.contextWindow,
      windowKnown: windowIsKnown(this.model.windowSource),
      systemPrompt: this.systemPrompt,
      systemRole: 'system',
      tools: this.tools,
    };
  }

  get calibrationState(): Calibration {
    return this.calibration;
  }

  measure(): MeasuredContext | undefined {
    const deps = this.deps();
    return deps ? measureContext(this.log.path(), deps) : undefined;
  }

  budgetView(measured: MeasuredContext | undefined = this.measure()): BudgetView | undefined {
    if (!measured) return undefined;
    const view = toBudgetView({
      budget: measured.budget,
      path: measured.path,
      model: this.model.id,
      windowSource: this.model.windowSource,
      ...(this.model.windowDetail ? { windowDetail: this.model.windowDetail } : {}),
      autoCompaction: this.configuration.settings.compaction.auto,
    });
    // The status bar's level (same thresholds, same function), so the panel says it in words too.
    const thresholds = this.configuration.settings.statusBar;
    const level = budgetLevel(view.percent, thresholds, view.windowKnown);
    return level === 'normal' ? view : { ...view, alert: { level, threshold: level === 'error' ? thresholds.errorPercent : thresholds.warningPercent } };
  }

  private loadCalibration(modelId: string): Calibration {
    return Calibration.fromJSON(this.memento.get(calibrationKey(modelId)), modelId);
  }

  /** Persists calibration (per model, shared by sessions) and the counts made since the last save (per session, derived data). */
  async save(): Promise<void> {
    await this.memento.update(calibrationKey(this.model.id), this.calibration.toJSON());
    await this.counts.save();
  }

  /** A line the next @agent reply starts with (e.g. "restored the branch before a compaction"). */
  noteForChat(text: string): void {
    this.notes.push(text);
    this.changed.fire();
  }

  /** The pending notes, once. */
  takeNotes(): string[] {
    const notes = this.notes;
    this.notes = [];
    return notes;
  }

  /** Tells listeners to re-read (e.g. after settings changed). */
  refresh(): void {
    this.changed.fire();
  }

  dispose(): void {
    this.engine.stop();
    this.stopEngineListening();
    this.stopListening();
    this.changed.dispose();
  }
}

function calibrationKey(modelId: string): string {
  return `calibration:${modelId}`;
}

function countsFile(log: SessionLog): string {
  return log.file.replace(/\.jsonl$/, '.counts.json');
}

function workspaceRoots(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.fsPath);
}
