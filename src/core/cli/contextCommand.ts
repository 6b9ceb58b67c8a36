// `context <session.jsonl> [--leaf ID] [--model ID] [--system TEXT] [--json]`: the exact messages the model would be sent.
import { buildContext } from '../context/contextBuilder';
import type { ChatMessage } from '../context/chatMessage';
import { SessionLog } from '../session/sessionLog';
import { requireFile, UsageError } from './cliArgs';
import type { CliCommand } from './cliDeps';

/** Counts are for this model's tokenizer unless --model names another. */
export const DEFAULT_MODEL = 'gpt-4o';

function preview(message: ChatMessage): string {
  const text = (message.content ?? '').replace(/\s+/g, ' ');
  const calls = message.role === 'assistant' && message.tool_calls ? ` [calls: ${message.tool_calls.map((call) => call.function.name).join(', ')}]` : '';
  return `${message.role}: ${text.length > 100 ? `${text.slice(0, 100)}…` : text}${calls}`;
}

export const contextCommand: CliCommand = {
  options: { leaf: 'string', model: 'string', system: 'string', json: 'boolean' },
  run: async (args, deps) => {
    const file = requireFile(args, 'context');
    const model = args.options.get('model') ?? DEFAULT_MODEL;
    const { log, warnings } = await SessionLog.open(file, { io: deps.io, readOnly: true });
    for (const warning of warnings) deps.err(`warning: ${warning}`);
    const leaf = args.options.get('leaf') ?? log.leafId;
    if (leaf !== null && !log.tree.isNode(leaf)) throw new UsageError(`no entry ${leaf} in ${file}`);
    const system = args.options.get('system');
    const { messages } = buildContext(log.tree.pathTo(leaf), system === undefined ? {} : { systemPrompt: system });
    const counter = await deps.createCounter(model);
    const tokens = counter.countMessages(messages);
    if (args.switches.has('json')) {
      deps.out(JSON.stringify({ model, encoding: counter.encoding, exact: counter.exact, tokens, messages }));
      return 0;
    }
    const how = counter.exact ? 'exactly' : `estimated with ${counter.encoding}`;
    deps.out([...messages.map(preview), `${messages.length} messages, ${tokens} tokens for ${model} (${how})`].join('\n'));
    return 0;
  },
};
