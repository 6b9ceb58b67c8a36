// Reads a session the way a person debugging it would: its path in one line, and the CLI's integrity report of its file.
import { parseArgs } from '../../../src/core/cli/cliArgs';
import { verifyCommand } from '../../../src/core/cli/verifyCommand';
import type { VerifyReport } from '../../../src/core/cli/verifyReport';
import type { SessionEntry } from '../../../src/core/session/entries';
import { nodeFileIo } from '../../../src/core/storage/fileIo';
import type { AgentSession } from '../../../src/vscode/sessions/agentSession';

function describe(entry: SessionEntry): string {
  switch (entry.type) {
    case 'assistant':
      return entry.toolCalls.length > 0 ? `assistant[${entry.toolCalls.map((call) => call.name).join(',')}]` : `assistant(${entry.stopReason ?? ''})`;
    case 'toolResult':
      return `toolResult(${entry.toolName}, ${entry.content.length} chars${entry.isError ? ', error' : ''})`;
    case 'prune':
      return `prune(${entry.toolResultIds.length})`;
    case 'compaction':
      return `compaction(${entry.tokensBefore}->${entry.tokensAfter})`;
    default:
      return entry.type;
  }
}

/** The session's current path in one line, for assertion messages. */
export function pathSummary(session: AgentSession): string {
  const budget = session.budgetView();
  const used = budget ? ` [budget ${budget.used}/${budget.usable}, fixed ${budget.breakdown.system + budget.breakdown.tools}]` : '';
  return session.log.path().map(describe).join(' → ') + used;
}

/** Runs the CLI's `verify --json` on the session file (what a user would run after a crash). */
export async function verifySessionFile(file: string): Promise<VerifyReport> {
  let printed = '';
  const code = await verifyCommand.run(parseArgs([file, '--json'], verifyCommand.options, 'verify'), {
    io: nodeFileIo,
    out: (text) => {
      printed += text;
    },
    err: (text) => {
      throw new Error(`verify failed: ${text}`);
    },
    createCounter: () => Promise.reject(new Error('verify counts no tokens')),
  });
  if (code !== 0) throw new Error(`verify exited ${code}`);
  return JSON.parse(printed) as VerifyReport;
}
