// The tools offered to the model: the built-ins plus external ones (e.g. vscode.lm.tools), looked up by name.
import type { ChatToolDefinition } from '../context/chatMessage';
import { runCommandTool } from './commandTool';
import { editFileTool, writeFileTool } from './editTools';
import { findFilesTool, listDirTool, readFileTool, searchTextTool } from './fileTools';
import { readStoredOutputTool, readTranscriptTool } from './sessionTools';
import type { ExternalTool, Tool, ToolContext, ToolOutput } from './toolTypes';
import { describeError, errorOutput } from './toolTypes';

/** The built-in tools in the order the model sees them. */
export function builtinTools(): Tool[] {
  return [
    readFileTool,
    listDirTool,
    findFilesTool,
    searchTextTool,
    writeFileTool,
    editFileTool,
    runCommandTool,
    readStoredOutputTool,
    readTranscriptTool,
  ];
}

/** Chat Completions function names allow [a-zA-Z0-9_-]{1,64}; other characters become "_". */
export function functionName(name: string): string {
  const cleaned = name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
  return cleaned === '' ? 'tool' : cleaned;
}

function wrapExternal(tool: ExternalTool, name: string): Tool {
  return {
    definition: { type: 'function', function: { name, description: tool.description, parameters: tool.inputSchema } },
    async execute(raw, context) {
      let args = raw;
      if (typeof raw === 'string') {
        try {
          args = raw.trim() === '' ? {} : (JSON.parse(raw) as unknown);
        } catch {
          return errorOutput(`${name}: the arguments are not valid JSON.`);
        }
      }
      try {
        return { text: await tool.invoke(args, context.signal), isError: false };
      } catch (error) {
        return errorOutput(`${name} failed: ${describeError(error)}`);
      }
    },
  };
}

export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();

  constructor(tools: readonly Tool[] = builtinTools()) {
    for (const tool of tools) this.tools.set(tool.definition.function.name, tool);
  }

  /** Adds an external tool; returns false (and keeps the existing one) when its name is taken. */
  addExternal(tool: ExternalTool): boolean {
    const name = functionName(tool.name);
    if (this.tools.has(name)) return false;
    this.tools.set(name, wrapExternal(tool, name));
    return true;
  }

  /** Adds a built-in kind of tool made for one request (delegate); returns false when its name is taken. */
  add(tool: Tool): boolean {
    const name = tool.definition.function.name;
    if (this.tools.has(name)) return false;
    this.tools.set(name, tool);
    return true;
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  get(name: string): Tool | undefined {
    return this.tools.get(name);
  }

  definitions(): ChatToolDefinition[] {
    return [...this.tools.values()].map((tool) => tool.definition);
  }

  /** Runs a call by name; an unknown name is an error output listing the real names, never a throw. */
  async execute(name: string, args: unknown, context: ToolContext): Promise<ToolOutput> {
    const tool = this.tools.get(name);
    if (!tool) return errorOutput(`Unknown tool ${JSON.stringify(name)}. Available tools: ${this.names().join(', ')}.`);
    try {
      return await tool.execute(args, context);
    } catch (error) {
      return errorOutput(`${name} failed: ${describeError(error)}`);
    }
  }
}
