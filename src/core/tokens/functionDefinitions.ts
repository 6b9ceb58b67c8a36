// Converts tool definitions (free-form JSON Schema) into gpt-tokenizer's function-definition shape for counting.
import type {
  ChatCompletionFunctionDefinition,
  ChatCompletionFunctionProperty,
  ChatCompletionObjectProperty,
} from 'gpt-tokenizer/functionCalling';
import type { ChatToolDefinition } from '../context/chatMessage';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The first JSON Schema type named (a schema may list several, e.g. ["string","null"]). */
function schemaType(schema: Record<string, unknown>): string | undefined {
  const type = schema.type;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return type.find((item): item is string => typeof item === 'string' && item !== 'null');
  if (isRecord(schema.properties)) return 'object';
  return undefined;
}

function toObjectProperty(schema: Record<string, unknown>): ChatCompletionObjectProperty {
  const properties: Record<string, ChatCompletionFunctionProperty> = {};
  if (isRecord(schema.properties)) {
    for (const [name, value] of Object.entries(schema.properties)) {
      properties[name] = toProperty(isRecord(value) ? value : {});
    }
  }
  const required = Array.isArray(schema.required)
    ? schema.required.filter((item): item is string => typeof item === 'string')
    : undefined;
  return { type: 'object', description: stringOrUndefined(schema.description), required, properties };
}

/** Maps one JSON Schema node to the subset of types the prompt formatter knows. */
function toProperty(schema: Record<string, unknown>): ChatCompletionFunctionProperty {
  const description = stringOrUndefined(schema.description);
  const values = Array.isArray(schema.enum) ? schema.enum : undefined;
  switch (schemaType(schema)) {
    case 'string':
      return { type: 'string', description, enum: values?.map((value) => String(value)) };
    case 'integer':
    case 'number':
      return {
        type: 'number',
        description,
        enum: values?.filter((value): value is number | string => typeof value === 'number' || typeof value === 'string'),
      };
    case 'boolean':
      return { type: 'boolean', description };
    case 'null':
      return { type: 'null', description };
    case 'array':
      return { type: 'array', description, items: isRecord(schema.items) ? toProperty(schema.items) : undefined };
    case 'object':
      return toObjectProperty(schema);
    default:
      // An untyped schema (anyOf, $ref...) renders as `any` in OpenAI's prompt; `null` costs the same one token.
      return { type: 'null', description };
  }
}

/** The function definitions gpt-tokenizer formats the way OpenAI renders `tools` into the prompt. */
export function toFunctionDefinitions(tools: readonly ChatToolDefinition[]): ChatCompletionFunctionDefinition[] {
  return tools.map((tool) => ({
    name: tool.function.name,
    description: tool.function.description || undefined,
    parameters: toObjectProperty(tool.function.parameters),
  }));
}
