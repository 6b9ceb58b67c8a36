// Builds a Tool from its parameter specs and a body: validation and error-to-text conversion in one place.
import { resolveLexically } from './pathSafety';
import type { ArgsOf, ParamSpecs } from './toolArgs';
import { parametersSchema, parseArgs } from './toolArgs';
import type { Tool, ToolContext, ToolOutput } from './toolTypes';
import { describeError, errorOutput } from './toolTypes';

export function defineTool<S extends ParamSpecs>(
  name: string,
  description: string,
  specs: S,
  run: (args: ArgsOf<S>, context: ToolContext) => Promise<ToolOutput>,
): Tool {
  return {
    definition: { type: 'function', function: { name, description, parameters: parametersSchema(specs) } },
    async execute(raw, context) {
      const parsed = parseArgs(name, specs, raw);
      if ('error' in parsed) return errorOutput(parsed.error);
      if (context.signal.aborted) return errorOutput('[cancelled by the user]');
      try {
        return await run(parsed.args, context);
      } catch (error) {
        return errorOutput(`${name} failed: ${describeError(error)}`);
      }
    },
  };
}

/** The workspace-relative form of a path for messages and the file ledger (the raw text if it cannot be resolved). */
export function displayPath(raw: string, context: ToolContext): string {
  try {
    return resolveLexically(raw, context.workspace.roots()).relative;
  } catch {
    return raw;
  }
}
