// `context <session.jsonl> [--leaf ID] [--system TEXT] [--json]`: the exact messages the model would be sent.
import { buildContext } from '../context/contextBuilder';
import type { ChatMessage } from '../context/chatMessage';
import { SessionLog } from '../session/sessionLog';
import { requireFile, UsageError } from './cliArgs';
import type { CliCommand } from './cliDeps';

function preview(message: ChatMessage): string {
  const text = (message.content ?? '').replace(/\s+/g, ' ');
  const calls = message.role === 'assistant' && message.tool_calls ? ` [calls: ${message.tool_calls.map((call) => call.function.name).join(', ')}]` : '';
  return `${message.role}: ${text.length > 100 ? `${text.slice(0, 100)}…` : text}${calls}`;
}

export const contextCommand: CliCommand = async (args, deps) => {
  const file = requireFile(args, 'context');
  const { log, warnings } = await SessionLog.open(file, { io: deps.io, readOnly: true });
  for (const warning of warnings) deps.err(`warning: ${warning}`);
  const leaf = args.options.get('leaf') ?? log.leafId;
  if (leaf !== null && !log.tree.isNode(leaf)) throw new UsageError(`no entry ${leaf} in ${file}`);
  const system = args.options.get('system');
  const { messages } = buildContext(log.tree.pathTo(leaf), system === undefined ? {} : { systemPrompt: system });
  const tokens = deps.countTokens(messages);
  if (args.switches.has('json')) deps.out(JSON.stringify({ messages, tokens }));
  else deps.out([...messages.map(preview), `${messages.length} messages, about ${tokens} tokens`].join('\n'));
  return 0;
};
