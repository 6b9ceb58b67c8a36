// Declares a tool's parameters once: the JSON schema sent to the model and the validator of what comes back.

export type ParamSpec =
  | { type: 'string'; description: string; required?: boolean }
  | { type: 'integer'; description: string; required?: boolean; minimum?: number }
  | { type: 'boolean'; description: string; required?: boolean };

export type ParamSpecs = Record<string, ParamSpec>;

type ValueOf<S extends ParamSpec> = S extends { type: 'string' } ? string : S extends { type: 'integer' } ? number : boolean;

export type ArgsOf<S extends ParamSpecs> = {
  [K in keyof S]: S[K] extends { required: true } ? ValueOf<S[K]> : ValueOf<S[K]> | undefined;
};

export function parametersSchema(specs: ParamSpecs): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(specs)) {
    const property: Record<string, unknown> = { type: spec.type, description: spec.description };
    if (spec.type === 'integer' && spec.minimum !== undefined) property.minimum = spec.minimum;
    properties[name] = property;
  }
  const required = Object.entries(specs)
    .filter(([, spec]) => spec.required === true)
    .map(([name]) => name);
  return { type: 'object', properties, required, additionalProperties: false };
}

function checkValue(name: string, spec: ParamSpec, value: unknown): string | undefined {
  if (spec.type === 'string') return typeof value === 'string' ? undefined : `"${name}" must be a string`;
  if (spec.type === 'boolean') return typeof value === 'boolean' ? undefined : `"${name}" must be true or false`;
  if (typeof value !== 'number' || !Number.isInteger(value)) return `"${name}" must be an integer`;
  if (spec.minimum !== undefined && value < spec.minimum) return `"${name}" must be at least ${spec.minimum}`;
  return undefined;
}

/**
 * Validates arguments (an object, or its JSON text) against the specs. Integers sent as numeric strings and
 * booleans sent as "true"/"false" are accepted because small local models often quote them.
 */
export function parseArgs<S extends ParamSpecs>(tool: string, specs: S, raw: unknown): { args: ArgsOf<S> } | { error: string } {
  let value = raw;
  if (typeof value === 'string') {
    try {
      value = value.trim() === '' ? {} : (JSON.parse(value) as unknown);
    } catch {
      return { error: `${tool}: the arguments are not valid JSON. Send an object like ${exampleOf(specs)}.` };
    }
  }
  if (value === undefined || value === null) value = {};
  if (typeof value !== 'object' || Array.isArray(value)) return { error: `${tool}: the arguments must be a JSON object.` };
  const input = value as Record<string, unknown>;
  const problems: string[] = [];
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(specs)) {
    let item = input[name];
    if (item === undefined || item === null) {
      if (spec.required === true) problems.push(`"${name}" is required`);
      continue;
    }
    if (spec.type === 'integer' && typeof item === 'string' && /^-?\d+$/.test(item.trim())) item = Number(item);
    if (spec.type === 'boolean' && (item === 'true' || item === 'false')) item = item === 'true';
    const problem = checkValue(name, spec, item);
    if (problem) problems.push(problem);
    else out[name] = item;
  }
  const unknown = Object.keys(input).filter((name) => !(name in specs));
  if (unknown.length > 0) problems.push(`unknown argument${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')}`);
  if (problems.length > 0) return { error: `${tool}: invalid arguments: ${problems.join('; ')}. Expected ${exampleOf(specs)}.` };
  return { args: out as ArgsOf<S> };
}

function exampleOf(specs: ParamSpecs): string {
  const parts = Object.entries(specs).map(([name, spec]) => `"${name}"${spec.required === true ? '' : '?'}: ${spec.type}`);
  return `{${parts.join(', ')}}`;
}
