// Test helper: a strict validator of the OpenAI Chat Completions message array a provider would accept.
const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);

/** Every rule a strict provider enforces; returns the problems found ([] = valid). */
export function validateChatMessages(messages: readonly unknown[]): string[] {
  const problems: string[] = [];
  let open: string[] = [];
  let answered = new Set<string>();
  messages.forEach((value, i) => {
    const where = `message ${i}`;
    if (typeof value !== 'object' || value === null) return problems.push(`${where}: not an object`);
    const message = value as Record<string, unknown>;
    const role = message.role;
    if (typeof role !== 'string' || !ROLES.has(role)) return problems.push(`${where}: invalid role ${JSON.stringify(role)}`);
    if (role !== 'tool' && open.length > answered.size) {
      problems.push(`${where}: calls ${open.filter((id) => !answered.has(id)).join(', ')} were not answered before a ${role} message`);
    }
    if (role === 'tool') {
      if (typeof message.tool_call_id !== 'string') problems.push(`${where}: tool message without tool_call_id`);
      else if (!open.includes(message.tool_call_id)) problems.push(`${where}: tool result ${message.tool_call_id} answers no call of the preceding assistant message`);
      else if (answered.has(message.tool_call_id)) problems.push(`${where}: call ${message.tool_call_id} answered twice`);
      else answered.add(message.tool_call_id);
      if (typeof message.content !== 'string') problems.push(`${where}: tool content must be a string`);
      return;
    }
    open = [];
    answered = new Set();
    if (role === 'assistant') {
      const calls = message.tool_calls;
      const hasCalls = Array.isArray(calls) && calls.length > 0;
      if (calls !== undefined && !Array.isArray(calls)) problems.push(`${where}: tool_calls must be an array`);
      if (Array.isArray(calls)) {
        for (const call of calls as unknown[]) {
          const c = call as { id?: unknown; type?: unknown; function?: { name?: unknown; arguments?: unknown } };
          if (typeof c.id !== 'string' || c.type !== 'function' || typeof c.function?.name !== 'string' || typeof c.function.arguments !== 'string') {
            problems.push(`${where}: malformed tool call`);
          } else if (open.includes(c.id)) problems.push(`${where}: duplicate tool call id ${c.id}`);
          else open.push(c.id);
        }
      }
      const content = message.content;
      if (!(content === null || typeof content === 'string')) problems.push(`${where}: assistant content must be a string or null`);
      if (!hasCalls && (typeof content !== 'string' || content.trim() === '')) problems.push(`${where}: empty assistant message`);
    } else if (typeof message.content !== 'string') {
      problems.push(`${where}: ${role} content must be a string`);
    }
    if ((role === 'system' || role === 'developer') && i !== 0) problems.push(`${where}: system message not first`);
    return;
  });
  if (open.length > answered.size) problems.push(`end: calls ${open.filter((id) => !answered.has(id)).join(', ')} were never answered`);
  return problems;
}
