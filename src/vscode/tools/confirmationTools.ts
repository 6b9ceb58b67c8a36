// VS Code's inline chat confirmation (Allow / Skip) before @agent runs a command or changes a file: two tools whose only work is to be allowed.
import * as vscode from 'vscode';

export const APPROVE_COMMAND_TOOL = 'compactionAgent_approveCommand';
export const APPROVE_FILE_CHANGE_TOOL = 'compactionAgent_approveFileChange';
export const CONFIRMATION_TOOLS: readonly string[] = [APPROVE_COMMAND_TOOL, APPROVE_FILE_CHANGE_TOOL];

/** What the tools' invoke returns: only then did the person allow it (Skip never reaches invoke). */
const ALLOWED = 'allowed by the user';

export interface CommandApproval {
  command: string;
  cwd: string;
}

export interface FileChangeApproval {
  /** Workspace-relative path. */
  path: string;
  verb: 'create' | 'overwrite' | 'edit';
  /** "+3 −1 lines" or "new file, 12 lines". */
  stats: string;
}

/** A fenced block that no backtick run inside `text` can close. */
function fenced(text: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}\n${text}\n${fence}`;
}

function plain(text: string): vscode.MarkdownString {
  const markdown = new vscode.MarkdownString();
  markdown.appendText(text);
  return markdown;
}

function allowed(): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(ALLOWED)]);
}

/** Seen by the tests: every confirmation the chat has been asked to show and not yet answered. */
export class PendingConfirmations {
  private readonly asked = new Set<string>();

  get titles(): string[] {
    return [...this.asked];
  }

  add(title: string): vscode.Disposable {
    this.asked.add(title);
    return { dispose: () => this.asked.delete(title) };
  }
}

/** What a file change does, as a title: Create, Edit or Overwrite and the path. */
function fileAction(verb: string, path: string): string {
  return verb === 'create' ? vscode.l10n.t('Create {0}', path) : verb === 'edit' ? vscode.l10n.t('Edit {0}', path) : vscode.l10n.t('Overwrite {0}', path);
}

export function registerConfirmationTools(): vscode.Disposable[] {
  return [
    vscode.lm.registerTool<CommandApproval>(APPROVE_COMMAND_TOOL, {
      prepareInvocation: ({ input }) => {
        const message = plain(vscode.l10n.t('@agent wants to run this command in {0}:', input.cwd));
        message.appendMarkdown(`\n\n${fenced(input.command)}`);
        return { invocationMessage: plain(vscode.l10n.t('Run `{0}`', input.command)), confirmationMessages: { title: vscode.l10n.t('Run a command?'), message } };
      },
      invoke: allowed,
    }),
    vscode.lm.registerTool<FileChangeApproval>(APPROVE_FILE_CHANGE_TOOL, {
      prepareInvocation: ({ input }) => ({
        invocationMessage: plain(fileAction(input.verb, input.path)),
        confirmationMessages: {
          title: vscode.l10n.t('{0}?', fileAction(input.verb, input.path)),
          message: plain(vscode.l10n.t('@agent wants to {0} {1} ({2}). The change is open in the diff editor: current on the left, proposed on the right. Skip keeps the file as it is.', input.verb, input.path, input.stats)),
        },
      }),
      invoke: allowed,
    }),
  ];
}

function isCancellation(error: unknown): boolean {
  return error instanceof vscode.CancellationError || (error instanceof Error && /cancel/i.test(`${error.name} ${error.message}`));
}

/**
 * Asks in the chat the request came from; true only when the person allowed it (or had allowed the tool for the
 * session). Skip, a cancelled request, or a confirmation VS Code would not show resolve false: nothing changes.
 */
export async function approveInChat(
  tool: string,
  input: CommandApproval | FileChangeApproval,
  toolInvocationToken: vscode.ChatRequest['toolInvocationToken'],
  pending: PendingConfirmations,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  if (signal?.aborted) return false;
  const source = new vscode.CancellationTokenSource();
  const cancel = (): void => source.cancel();
  signal?.addEventListener('abort', cancel, { once: true });
  const asking = pending.add(`${tool} ${JSON.stringify(input)}`);
  try {
    const result = await vscode.lm.invokeTool(tool, { input, toolInvocationToken }, source.token);
    return result.content.some((part) => part instanceof vscode.LanguageModelTextPart && part.value === ALLOWED);
  } catch (error) {
    if (isCancellation(error)) return false;
    throw error;
  } finally {
    asking.dispose();
    signal?.removeEventListener('abort', cancel);
    source.dispose();
  }
}
