// The delegate tool in the chat: each sub-task gets a child session (in the Sessions list), its progress and a button to open it.
import * as vscode from 'vscode';
import type { SubagentParent } from '../../core/agent/subagent';
import { subagentDelegate } from '../../core/agent/subagent';
import { modelSummarizer } from '../../core/compaction/summarizer';
import type { TokenCounter } from '../../core/tokens/tokenCounter';
import type { Delegate } from '../../core/tools/delegateTool';
import { delegateTool } from '../../core/tools/delegateTool';
import type { Tool } from '../../core/tools/toolTypes';
import type { AgentSession } from '../sessions/agentSession';
import type { AgentSessions } from '../sessions/agentSessions';
import { markdownWithText } from './chatMarkdown';
import type { BoundModel } from '../endpoint/modelBinding';

/** The hidden command the chat's "Open sub-task session" button runs (registered in paletteCommands.ts). */
export const OPEN_SESSION_COMMAND = 'compactionAgent.openSession';

function titleOf(task: string): string {
  const line = task.replace(/\s+/g, ' ').trim();
  return `Sub-task: ${line.length > 60 ? `${line.slice(0, 59)}…` : line}`;
}

export interface DelegateInput {
  sessions: AgentSessions;
  parent: AgentSession;
  bound: BoundModel;
  counter: TokenCounter;
  stream: vscode.ChatResponseStream;
  /** The parent's run options, read when a sub-task starts (they are set once the request is built). */
  parentOptions: () => SubagentParent;
}

/**
 * The `delegate` tool for one request. The chat's stable API has no collapsible part, so the sub-task shows as
 * progress lines (folded into the chat's step list) and one closing line with a button to open its session.
 */
export function chatDelegateTool(input: DelegateInput): Tool {
  const delegate: Delegate = async (task, context) => {
    const inner = subagentDelegate({
      createChild: async (childTask, toolCallId) => {
        const child = await input.sessions.create(titleOf(childTask), { parent: { sessionId: input.parent.id, toolCallId } });
        await child.useModel(input.bound.choice);
        const summarize = modelSummarizer({ model: input.bound.summaryStream, counter: input.counter, summaryWindow: input.bound.summaryWindow, path: () => child.log.path() });
        return { id: child.id, log: child.log, beginRequest: (signal) => child.engine.beginRequest(signal), summarize };
      },
      parent: input.parentOptions(),
      onProgress: (line) => input.stream.progress(`Sub-task: ${line}`),
    });
    input.stream.progress(titleOf(task));
    const delegation = await inner(task, context);
    const child = await input.sessions.open(delegation.link.sessionId);
    await child?.save().catch(() => undefined);
    const calls = delegation.steps === 1 ? vscode.l10n.t('1 model call') : vscode.l10n.t('{0} model calls', delegation.steps);
    const outcome = delegation.ended === 'finished' ? vscode.l10n.t('answered') : vscode.l10n.t('ended ({0})', delegation.ended);
    input.stream.markdown(markdownWithText('\n\n> *', vscode.l10n.t('{0}: {1} after {2}; only its answer was added to this conversation.', titleOf(task), outcome, calls), '*\n\n'));
    input.stream.button({ command: OPEN_SESSION_COMMAND, title: vscode.l10n.t('Open sub-task session'), arguments: [delegation.link.sessionId] });
    return delegation;
  };
  // The caps are read when a call comes (the request's settings), one count per request: this tool is made per request.
  return delegateTool(delegate, () => {
    const tools = input.parentOptions().settings.tools;
    return { perReply: tools.delegateMaxPerReply, perRequest: tools.delegateMaxPerRequest };
  });
}

/** Opens a session by id (a sub-task's), makes it the one the panel follows, and shows the panel. */
export async function openSession(sessions: AgentSessions, id: unknown, showPanel: () => void): Promise<void> {
  if (typeof id !== 'string') return;
  const session = await sessions.open(id);
  if (!session) {
    void vscode.window.showWarningMessage(vscode.l10n.t("That session is no longer in this workspace's storage."));
    return;
  }
  sessions.activate(session);
  showPanel();
}
