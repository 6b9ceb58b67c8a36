// Composition root: creates the extension's objects, wires them together and registers their disposables.
import * as vscode from 'vscode';
import { modelSummarizer } from './core/compaction/summarizer';
import { sessionUsage } from './core/views/usageView';
import { AgentSessions } from './vscode/sessions/agentSessions';
import { ApiKeyStore } from './vscode/endpoint/apiKeyStore';
import { changeConfirmation, type ChatConfirmChange } from './vscode/tools/changeConfirmation';
import { PendingConfirmations, registerConfirmationTools } from './vscode/tools/confirmationTools';
import { registerChatParticipant } from './vscode/chat/chatParticipant';
import { ChatReplies } from './vscode/chat/chatReplies';
import { CompactionPanel, PANEL_VIEW_TYPE } from './vscode/panel/compactionPanel';
import { CompactionReview, type SummarizerSource } from './vscode/panel/compactionReview';
import { Configuration } from './vscode/configuration';
import { ContextKeys } from './vscode/panel/contextKeys';
import { EndpointConnection } from './vscode/endpoint/endpointConnection';
import { EndpointModelProvider, VENDOR } from './vscode/endpoint/endpointModelProvider';
import { OutputLogger } from './vscode/logger';
import { bindModel, modelForCommands } from './vscode/endpoint/modelBinding';
import { WindowMemory } from './vscode/endpoint/windowMemory';
import { rememberRefusedImages } from './vscode/chat/refusedImagesMemory';
import { registerLearnedWindowsCommand } from './vscode/endpoint/learnedWindowsCommand';
import { registerPaletteCommands } from './vscode/paletteCommands';
import { PROPOSED_SCHEME, ProposedContent } from './vscode/tools/proposedContent';
import { SessionStore } from './vscode/sessions/sessionStore';
import { sessionStorage, workspaceIdentity } from './vscode/sessions/sessionStorage';
import { StatusBarController } from './vscode/panel/statusBarController';
import { PendingImages } from './vscode/chat/pendingImages';
import { RestoredBranchQuestions } from './vscode/chat/restoredBranchQuestion';
import { TerminalRunner } from './vscode/tools/terminalRunner';
import { workspaceCommandSnapshots } from './core/checkpoints/commandSnapshots';
import { EditorSaveWatch } from './vscode/tools/editorSaves';
import { fileRoots } from './vscode/tools/workspaceAccess';

/** When this module was evaluated: activation time counts from here (bundle load included). */
const moduleLoadedAt = performance.now();

/** Activation cost, measured in the real extension host (the benchmark reads it from the host tests). */
export interface ActivationTiming {
  /** From evaluating extension.js to the end of activate(). */
  totalMs: number;
  /** activate() alone. */
  activateMs: number;
}

/** What the extension exports: used by the extension-host tests, stable enough for other extensions. */
export interface ExtensionApi {
  sessions: AgentSessions;
  review: CompactionReview;
  panel: CompactionPanel;
  statusBar: StatusBarController;
  configuration: Configuration;
  activation: ActivationTiming;
  /** What the latest @agent replies showed in the Chat view. */
  replies: ChatReplies;
  /** What the agent's writes, edits and commands ask before they happen (a diff for file changes; inline in the chat with a request's token). */
  confirmChange: ChatConfirmChange;
  /** The inline chat confirmations asked and not yet answered. */
  pendingConfirmations: PendingConfirmations;
  /** The questions of requests on restored branches whose next call would not fit, waiting for an answer. */
  restoredBranchQuestions: RestoredBranchQuestions;
}

export function activate(context: vscode.ExtensionContext): ExtensionApi {
  const activateStarted = performance.now();
  const logger = new OutputLogger();
  const configuration = new Configuration(logger);
  const keys = new ApiKeyStore(context.secrets);
  void keys.get().then((key) => logger.addSecret(key));
  rememberRefusedImages(context.globalState);
  const endpoint = new EndpointConnection(configuration, keys, logger, new WindowMemory(context.globalState));
  // One folder per workspace, shared by every window on it; each window remembers the session its chat continues.
  const storage = sessionStorage(context, workspaceIdentity(vscode.workspace));
  const store = new SessionStore(storage, logger);
  const sessions = new AgentSessions(store, context.globalState, configuration, storage.windowFile);

  const summarizerFor: SummarizerSource = async (session) => {
    const bound = await bindModel(await modelForCommands(sessions.lastModel), endpoint, configuration);
    const counter = await session.ensureCounter();
    const summarize = modelSummarizer({ model: bound.summaryStream, counter, summaryWindow: bound.summaryWindow, path: () => session.log.path() });
    return { summarize, modelId: bound.choice.id };
  };
  let panel: CompactionPanel | undefined = undefined;
  const showPanel = (): void => panel?.show();
  const review = new CompactionReview(sessions, summarizerFor, showPanel);
  panel = new CompactionPanel({ extensionUri: context.extensionUri, backend: review, logger });
  const statusBar = new StatusBarController();
  const replies = new ChatReplies();
  const proposed = new ProposedContent();
  const pendingConfirmations = new PendingConfirmations();
  const confirmChange = changeConfirmation(configuration, proposed, pendingConfirmations);
  const pendingImages = new PendingImages();
  const restoredBranchQuestions = new RestoredBranchQuestions();
  const terminal = new TerminalRunner();
  const modelProvider = new EndpointModelProvider(endpoint, configuration, logger);
  const editorSaves = new EditorSaveWatch();
  // Our own snapshot of each folder around every run_command (no git, no program at all); nothing in Restricted Mode.
  const commandSnapshots = workspaceCommandSnapshots({
    roots: fileRoots,
    isTrusted: () => vscode.workspace.isTrusted,
    sessionsDir: store.sessionsDir,
    storeCapBytes: () => configuration.settings.tools.snapshotStoreMaxMegabytes * 1024 * 1024,
    collect: () => store.collectBlobs(),
    saves: editorSaves,
  });
  const updateStatusBar = (): void => {
    const active = sessions.active;
    statusBar.update(active?.budgetView(), configuration.settings.statusBar, active ? sessionUsage(active.log.path()) : undefined, active);
  };

  context.subscriptions.push(
    logger,
    configuration,
    keys,
    endpoint,
    { dispose: () => void sessions.dispose() },
    review,
    panel,
    statusBar,
    terminal,
    editorSaves,
    { dispose: () => void commandSnapshots.flush().catch(() => undefined) },
    sessions.onDidChangeActive(updateStatusBar),
    keys.onDidChangeApiKey(() => void keys.get().then((key) => logger.addSecret(key))),
    proposed,
    vscode.workspace.registerTextDocumentContentProvider(PROPOSED_SCHEME, proposed),
    modelProvider,
    vscode.lm.registerLanguageModelChatProvider(VENDOR, modelProvider),
    ...registerConfirmationTools(),
    registerChatParticipant({
      extensionUri: context.extensionUri,
      sessions,
      endpoint,
      configuration,
      review,
      logger,
      showPanel,
      replies,
      confirmChange,
      pendingImages,
      terminal,
      restoredBranchQuestions,
      commandSnapshots,
    }),
    ...registerPaletteCommands({ sessions, review, keys, configuration, endpoint, showPanel, pendingImages, restoredBranchQuestions }),
    new ContextKeys(sessions, endpoint, keys),
    registerLearnedWindowsCommand(endpoint.windows),
    // After a window reload VS Code restores the open panel; it follows the most recent session again.
    vscode.window.registerWebviewPanelSerializer(PANEL_VIEW_TYPE, {
      deserializeWebviewPanel: async (restored) => {
        panel?.restore(restored);
        await sessions.showLatest();
      },
    }),
  );
  // The budget item is there from activation (the first @agent request, a command, the panel, or the chat's model
  // picker listing the endpoint's models; never at startup by itself): before any session it says so and opens a
  // chat addressed to @agent; after a window reload it shows the workspace's latest session.
  updateStatusBar();
  void sessions.showLatest().catch((error: unknown) => logger.warn(`Could not show the latest session: ${String(error)}`));
  // The workbench resolves model vendors lazily: ask once so our models show in the picker right away.
  void vscode.lm.selectChatModels({ vendor: VENDOR }).then(
    (models) => logger.info(`Endpoint models: ${models.map((model) => model.id).join(', ') || 'none'}`),
    (error: unknown) => logger.warn(`Could not resolve the endpoint's models: ${String(error)}`),
  );
  const done = performance.now();
  const activation = { totalMs: done - moduleLoadedAt, activateMs: done - activateStarted };
  logger.info(`Compaction Agent activated in ${activation.activateMs.toFixed(1)} ms.`);
  return { sessions, review, panel, statusBar, configuration, activation, replies, confirmChange, pendingConfirmations, restoredBranchQuestions };
}

export function deactivate(): void {
  // Everything is released through context.subscriptions.
}
