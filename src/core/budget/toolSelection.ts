// Tool definitions are part of the budget: in a small window only as many optional tools are offered as fit their share.
import type { ChatToolDefinition } from '../context/chatMessage';
import type { Settings } from '../settings/settings';
import type { TokenCounter } from '../tokens/tokenCounter';
import type { Calibration } from './calibration';
import { toolsInEndpointUnits } from './meter';
import { thresholdsFor } from './thresholds';

export interface ToolSelection<T> {
  chosen: T[];
  /** Optional tools left out because they would not fit. */
  dropped: T[];
  /** The offered definitions (built-in and chosen) in the endpoint's units. */
  tokens: number;
  /** Their share of the usable budget. */
  limit: number;
}

export interface ToolSelectionInput<T> {
  builtIn: readonly ChatToolDefinition[];
  /** Optional tools in preference order, each with its definition. */
  optional: readonly T[];
  definition: (tool: T) => ChatToolDefinition;
  counter: TokenCounter;
  calibration?: Calibration;
  contextWindow: number;
  settings: Settings;
}

/**
 * Keeps the built-in tools (the agent cannot work without them) and adds optional ones in order while
 * all definitions stay within `toolsShare` of the usable budget. VS Code may offer dozens of tools
 * (about 10k tokens): a third of a 32k budget, more than the prompt room of an 8k model.
 */
export function selectTools<T>(input: ToolSelectionInput<T>): ToolSelection<T> {
  const thresholds = thresholdsFor(input.contextWindow, input.settings);
  const limit = Math.floor(thresholds.usable * thresholds.toolsShare);
  const measure = (tools: readonly ChatToolDefinition[]): number => toolsInEndpointUnits(input.counter, tools, input.calibration);
  const offered = [...input.builtIn];
  let tokens = measure(offered);
  const chosen: T[] = [];
  const dropped: T[] = [];
  for (const tool of input.optional) {
    // Definitions cost about the sum of their parts, so each one is measured alone and the total checked once at the end.
    const cost = measure([input.definition(tool)]);
    if (tokens + cost <= limit) {
      chosen.push(tool);
      offered.push(input.definition(tool));
      tokens += cost;
    } else dropped.push(tool);
  }
  return { chosen, dropped, tokens: chosen.length > 0 ? measure(offered) : tokens, limit };
}
