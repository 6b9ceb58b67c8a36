// Runs one @agent request through the core agent loop (its events shown by agentEventView.ts).
import * as vscode from 'vscode';
import type { RestoredBranchQuestion } from '../../core/agent/agentEvents';
import type { CommandSnapshots } from '../../core/checkpoints/commandSnapshots';
import type { AgentOptions } from '../../core/agent/agentLoop';
import { runAgent } from '../../core/agent/agentLoop';
import type { SubagentParent } from '../../core/agent/subagent';
import type { AgentSessions } from '../sessions/agentSessions';
import { chatDelegateTool } from './subagentRun';
import { readInstructionFiles } from '../../core/context/instructionFiles';
import { buildSystemPrompt } from '../../core/agent/systemPrompt';
import { thresholdsFor } from '../../core/budget/thresholds';
import { prepareAttachments } from '../../core/agent/userAttachments';
import { modelSummarizer } from '../../core/compaction/summarizer';
import type { DoneEvent } from '../../core/llm/modelStream';
import { selectTools } from '../../core/budget/toolSelection';
import { functionName, ToolRegistry } from '../../core/tools/toolRegistry';
import type { UserAttachment, UserImage } from '../../core/session/entries';
import { imageDimensions, modelTakesImages } from '../../core/context/userImages';
import type { ExternalTool } from '../../core/tools/toolTypes';
import { formatTokens } from '../../shared/budgetFormat';
import type { AgentSession } from '../sessions/agentSession';
import type { ImageSource } from './chatAttachments';
import type { PendingImages } from './pendingImages';
import type { TerminalRunner } from '../tools/terminalRunner';
import { readChatAttachments } from './chatAttachments';
import { ContextFooter, renderEvent } from './agentEventView';
import type { ChatConfirmChange } from '../tools/changeConfirmation';
import type { CompactionReview } from '../panel/compactionReview';
import type { Configuration } from '../configuration';
import { externalTools } from '../tools/externalTools';
import { windowIsKnown } from '../../core/llm/contextWindow';
import { markdownWithText, noteMarkdown } from './chatMarkdown';
import { ReasoningView } from './reasoningView';
import type { BoundModel } from '../endpoint/modelBinding';
import { premiumRequestWarning, PremiumRequestTally } from '../endpoint/premiumRequestTally';
import { vscodeWorkspaceAccess } from '../tools/workspaceAccess';
import type { RestoredBranchQuestions } from './restoredBranchQuestion';

/** Models reject requests with too many tools; VS Code may offer dozens (MCP servers), so cap them. */
const MAX_EXTERNAL_TOOLS = 64;
/** Per session, the tool selection its replies last said was partial ("chosen/offered/limit"), so it is said once. */
const toolsNoteShown = new WeakMap<AgentSession, string>();

export interface AgentRunInput {
  session: AgentSession;
  bound: BoundModel;
  request: vscode.ChatRequest;
  stream: vscode.ChatResponseStream;
  /** The request's cancel, from its SessionEngine run (the chat's Stop, or a restore that stopped it). */
  signal: AbortSignal;
  configuration: Configuration;
  review: CompactionReview;
  /** Asked before a tool changes a file or runs a command (inline in this request's chat). */
  confirm: ChatConfirmChange;
  /** Images queued by "Attach Image…", sent with this request. */
  pendingImages?: PendingImages;
  /** The visible "@agent" terminal, used when tools.runCommandsInTerminal is on. */
  terminal?: TerminalRunner;
  /** Snapshots the workspace around each run_command (our own walk of each folder; nothing in Restricted Mode). */
  commandSnapshots?: CommandSnapshots;
  /** The window's sessions: a delegated sub-task gets a child session there (without it, no delegate tool is offered). */
  sessions?: AgentSessions;
  /** Asks in this reply when a call on a restored branch would not fit (without it, the request stops and says why). */
  questions?: RestoredBranchQuestions;
}

/** Why the images of this request stay out of the call, or undefined when the model gets them. */
function imagesWithheld(input: AgentRunInput): string | undefined {
  if (!input.bound.ours) return vscode.l10n.t("VS Code's language-model API gives extensions no way to send images to its models yet");
  if (modelTakesImages(input.bound.choice.id, input.configuration.settings.endpoint.imageInput)) return undefined;
  return vscode.l10n.t('{0} is not known to read images (set compactionAgent.endpoint.imageInput to "always" if it does)', input.bound.choice.id);
}

/** Stores each image's bytes (base64) in the session's blob store, with its size from the header. */
async function storeImages(input: AgentRunInput, images: readonly ImageSource[], skipped: string[]): Promise<UserImage[]> {
  const stored: UserImage[] = [];
  for (const image of images) {
    const size = imageDimensions(image.bytes);
    if (!size) {
      skipped.push(vscode.l10n.t('Not sent: {0} is not a readable PNG, JPEG, GIF or WebP image.', image.name));
      continue;
    }
    const blob = await input.session.log.blobs.put(Buffer.from(image.bytes).toString('base64'));
    stored.push({ blob, mimeType: image.mimeType, name: image.name, width: size.width, height: size.height });
  }
  const withheld = stored.length > 0 ? imagesWithheld(input) : undefined;
  if (withheld) {
    const names = stored.map((image) => image.name).join(', ');
    skipped.push(
      stored.length === 1
        ? vscode.l10n.t('{0} is kept with your message, but the model gets only a line naming it: {1}.', names, withheld)
        : vscode.l10n.t('{0} are kept with your message, but the model gets only a line naming them: {1}.', names, withheld),
    );
  }
  return stored;
}

/** The request's attachments, capped for this model's window; what was left out or shortened is said in the reply. */
async function requestAttachments(input: AgentRunInput): Promise<{ attachments: UserAttachment[]; images: UserImage[] }> {
  const read = await readChatAttachments(input.request.references);
  const prepared = prepareAttachments(read.sources, thresholdsFor(input.bound.choice.contextWindow, input.configuration.settings));
  const shortened = prepared.shortened.map((label) => vscode.l10n.t('Attached {0} was shortened to its head and tail to fit the context; the model can ask for the rest.', label));
  const skipped = [...read.skipped];
  const images = await storeImages(input, [...read.images, ...(input.pendingImages?.take() ?? [])], skipped);
  for (const note of [...skipped, ...shortened]) input.stream.markdown(noteMarkdown(note));
  return { attachments: prepared.attachments, images };
}

/** The window a first reply showed, also shown by the status bar and panel (with where it came from). */
function windowAfterReply(bound: BoundModel, session: AgentSession): (done: DoneEvent) => Promise<number | undefined> {
  return async (done) => {
    const found = await bound.windowAfterReply?.(done);
    if (!found) return undefined;
    void session.useModel({ id: bound.choice.id, contextWindow: found.tokens, windowSource: 'server', windowDetail: found.detail });
    return found.tokens;
  };
}

export async function runAgentRequest(input: AgentRunInput): Promise<void> {
  const { session, bound, request, stream, signal, configuration, review } = input;
  for (const note of session.takeNotes()) stream.markdown(noteMarkdown(note));
  if (bound.summaryNote) stream.markdown(noteMarkdown(bound.summaryNote));
  const premiumNote = premiumRequestWarning(session.id, bound.stream);
  if (premiumNote) stream.markdown(noteMarkdown(premiumNote));
  const tally = new PremiumRequestTally([bound.stream, bound.summaryStream]);
  let toolsNote: string | undefined;
  try {
    const counter = await session.ensureCounter();
    const registry = new ToolRegistry();
    const forSubtasks: { options?: SubagentParent } = {};
    if (input.sessions) {
      registry.add(
        chatDelegateTool({
          sessions: input.sessions,
          parent: session,
          bound,
          counter,
          stream,
          parentOptions: () => {
            if (!forSubtasks.options) throw new Error('the request is not ready to delegate yet');
            return forSubtasks.options;
          },
        }),
      );
    }
    if (configuration.settings.tools.includeVsCodeTools) {
      const optional = externalTools(request.toolInvocationToken).slice(0, MAX_EXTERNAL_TOOLS);
      const selection = selectTools<ExternalTool>({
        builtIn: registry.definitions(),
        optional,
        definition: (tool) => ({ type: 'function', function: { name: functionName(tool.name), description: tool.description, parameters: tool.inputSchema } }),
        counter,
        calibration: session.calibrationState,
        contextWindow: bound.choice.contextWindow,
        settings: configuration.settings,
      });
      for (const tool of selection.chosen) registry.addExternal(tool);
      // Said after the answer, once per session and selection: the first line of a reply is what the person asked for.
      const left = `${selection.chosen.length}/${optional.length}/${selection.limit}`;
      if (selection.dropped.length > 0 && toolsNoteShown.get(session) !== left) {
        toolsNoteShown.set(session, left);
        toolsNote = vscode.l10n.t("Not every VS Code tool was offered to the model: {0} of {1}, since all of them would take more than a quarter of this model's {2}-token prompt budget. Set compactionAgent.tools.includeVsCodeTools to false to offer none.", selection.chosen.length, optional.length, formatTokens(selection.limit * 4));
      }
    }
    const confirm = input.confirm;
    const workspace = vscodeWorkspaceAccess((change, aborted) => confirm(change, aborted, request.toolInvocationToken), configuration.settings.tools.runCommandsInTerminal ? input.terminal : undefined);
    // A repository's instruction files steer the model: only a trusted workspace gets to do that.
    const instructions = vscode.workspace.isTrusted ? await readInstructionFiles((file) => workspace.readFile(file)) : [];
    const systemPrompt = buildSystemPrompt({ toolNames: registry.names(), workspaceRoots: workspace.roots(), instructions });
    session.useRequestShape(registry.definitions(), systemPrompt);
    const deps = session.deps();
    if (!deps) throw new Error(vscode.l10n.t('The tokenizer could not be loaded.'));
    const summarize = modelSummarizer({ model: bound.summaryStream, counter, summaryWindow: bound.summaryWindow, path: () => session.log.path() });
    const questions = input.questions;
    const options: AgentOptions = {
      log: session.log,
      model: bound.stream,
      modelId: bound.choice.id,
      registry,
      workspace,
      settings: configuration.settings,
      contextWindow: bound.choice.contextWindow,
      windowKnown: windowIsKnown(bound.choice.windowSource),
      serverTruncates: bound.serverTruncates,
      raiseWindowHint: bound.raiseWindowHint,
      counter,
      cache: deps.cache,
      calibration: session.calibrationState,
      summarize,
      review: (proposal) => review.reviewForLoop(session, proposal, bound.choice.id, signal),
      ...(questions ? { askRestoredBranch: (question: RestoredBranchQuestion) => questions.ask(stream, session.id, question, signal) } : {}),
      signal,
      userText: request.prompt,
      ...(await requestAttachments(input).then(({ attachments, images }) => ({ userAttachments: attachments, userImages: images }))),
      systemPrompt,
      ...(input.commandSnapshots ? { commandSnapshots: input.commandSnapshots } : {}),
      ...(bound.windowAfterReply ? { windowAfterReply: windowAfterReply(bound, session) } : {}),
      onContextWindowLearned: (tokens, how) => {
        bound.rememberWindow(tokens, how);
        // The panel and status bar measure against it too (unless the setting fixes the window).
        if (bound.choice.windowSource !== 'setting') void session.useModel({ id: bound.choice.id, contextWindow: tokens, windowSource: 'learned' });
      },
    };
    // A sub-task shares the model, window, tokenizer and settings; its log, tools, cache and summarizer are its own.
    const { log: _log, registry: _registry, signal: _signal, userText: _userText, userAttachments: _attachments, userImages: _images, systemPrompt: _prompt, review: _review, askRestoredBranch: _ask, cache: _cache, commandSnapshots: _snapshots, summarize: _summarize, maxSteps: _steps, windowAfterReply: _afterReply, ...shared } = options;
    forSubtasks.options = shared;
    const events = runAgent(options);
    const footer = new ContextFooter();
    const reasoning = new ReasoningView(stream);
    for await (const event of events) {
      reasoning.observe(event);
      renderEvent(event, stream);
      footer.observe(event);
    }
    reasoning.flush();
    footer.render(stream);
    if (toolsNote) stream.markdown(markdownWithText('\n\n*', toolsNote, '*\n'));
    const requests = tally.footer();
    if (requests) stream.markdown(markdownWithText('\n\n*', `${requests}.`, '*\n'));
  } finally {
    await session.save().catch(() => undefined);
  }
}
