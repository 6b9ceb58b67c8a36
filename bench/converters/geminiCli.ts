// Converts a Gemini CLI chat history (the Content list `/chat share file.json` writes, or its Markdown form `/chat share file.md`) to pi-format session entries.
import { isObject, settleTimes, str, text, type ConvertedSession, type Json, type TimedMessage } from './piSession';

/** One part of a Gemini Content: text (thought or reply), a function call or a function response. */
type GeminiPart = { kind: 'text'; text: string; thought: boolean } | { kind: 'call'; id: string; name: string; args: Json } | { kind: 'response'; id: string; name: string; response: unknown };

interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

/** The reply Gemini CLI puts after the summary it wrote when it compressed its own context (no model made it). */
const COMPRESSION_ACK = 'Got it. Thanks for the additional context!';

/** Gemini CLI's tools renamed to pi's (with `file_path` → `path`); others keep their name and arguments. */
function geminiTool(name: string, args: Json): { name: string; arguments: Json } {
  const path = args.file_path ?? args.absolute_path ?? args.path;
  if (name === 'read_file') return { name: 'read', arguments: { path, ...(args.offset !== undefined ? { offset: args.offset } : {}), ...(args.limit !== undefined ? { limit: args.limit } : {}) } };
  if (name === 'write_file') return { name: 'write', arguments: { path, content: args.content } };
  if (name === 'replace') return { name: 'edit', arguments: { path, oldText: args.old_string, newText: args.new_string } };
  if (name === 'run_shell_command') return { name: 'bash', arguments: { command: args.command } };
  return { name, arguments: args };
}

/** A function response as the model saw it: its `output` (or `error`) text, else the response object. */
function responseText(response: unknown): { text: string; isError: boolean } {
  if (isObject(response) && typeof response.output === 'string') return { text: response.output, isError: false };
  if (isObject(response) && response.error !== undefined) return { text: typeof response.error === 'string' ? response.error : JSON.stringify(response.error), isError: true };
  return { text: typeof response === 'string' ? response : JSON.stringify(response ?? ''), isError: false };
}

/** The Content list of a `/chat share file.json` export (the model's hidden thoughts are parts marked `thought`). */
function contentsOfJson(input: string): { contents: GeminiContent[]; skipped: number } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(input);
  } catch (error) {
    throw new Error(`Not a Gemini CLI history (JSON): ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!Array.isArray(parsed)) throw new Error('Not a Gemini CLI history: expected the list of {role, parts} contents that /chat share writes.');
  let skipped = 0;
  const contents: GeminiContent[] = [];
  for (const item of parsed) {
    if (!isObject(item) || !Array.isArray(item.parts) || (item.role !== 'user' && item.role !== 'model')) {
      skipped++;
      continue;
    }
    const parts: GeminiPart[] = [];
    for (const part of item.parts as unknown[]) {
      if (!isObject(part)) continue;
      if (typeof part.text === 'string') parts.push({ kind: 'text', text: part.text, thought: part.thought === true });
      else if (isObject(part.functionCall)) parts.push({ kind: 'call', id: str(part.functionCall.id), name: str(part.functionCall.name), args: isObject(part.functionCall.args) ? part.functionCall.args : {} });
      else if (isObject(part.functionResponse)) parts.push({ kind: 'response', id: str(part.functionResponse.id), name: str(part.functionResponse.name), response: part.functionResponse.response });
    }
    contents.push({ role: item.role, parts });
  }
  return { contents, skipped };
}

const BLOCK_MARKER = /\*\*Tool (Command|Response)\*\*:\n```json\n/g;

/** A thought summary's bold title, at a line's start or glued to the sentence before it. */
const THOUGHT_TITLE = /(?:^|[.!?])\*\*[^*\n]+\*\*/g;
/** Where the reply is glued to the thought before it: a sentence's end, no space, then a new sentence (`….The …`). */
const REPLY_GLUE = /[.!?](?=[A-Z][a-z']*[ ,]|#)/g;

/**
 * The reply of a model block's leading text in the Markdown form, which joins parts with nothing between them: Gemini's
 * thought summaries come first, each a bold title and a paragraph (on the title's line or the next), glued to one
 * another; the reply starts where a sentence is glued to a new sentence after the last title (`…this.The …`), or at
 * the first line that is neither a title, a line holding a glued title, nor the paragraph of a title on its own line.
 */
function withoutThoughtSummaries(said: string): string {
  let at = 0;
  let titleAlone = false;
  while (at < said.length) {
    const end = said.indexOf('\n', at) < 0 ? said.length : said.indexOf('\n', at);
    const line = said.slice(at, end);
    const titles = [...line.matchAll(THOUGHT_TITLE)];
    if (!titleAlone && titles.length === 0) return said.slice(at);
    REPLY_GLUE.lastIndex = (titles.pop()?.index ?? 0) + 1;
    const glue = REPLY_GLUE.exec(line);
    if (glue) return said.slice(at + glue.index + 1);
    titleAlone = /^\*\*[^*\n]+\*\*\s*$/.test(line);
    at = end;
    while (said[at] === '\n') at++;
  }
  return '';
}

/**
 * The Content list of a `/chat share file.md` export: `## USER 🧑‍💻` / `## MODEL ✨` blocks whose parts are joined
 * with nothing between them, function calls and responses as JSON blocks. Thought parts are not marked there: the
 * thought summaries leading a model block are split off by withoutThoughtSummaries (a reading, not a record).
 */
function contentsOfMarkdown(input: string): { contents: GeminiContent[]; skipped: number } {
  let skipped = 0;
  const contents: GeminiContent[] = [];
  for (const block of input.split(/\n\n---\n\n(?=## (?:USER|MODEL) )/)) {
    const header = /^## (USER|MODEL) [^\n]*\n\n?/.exec(block);
    if (!header) {
      if (block.trim() !== '') skipped++;
      continue;
    }
    const body = block.slice(header[0].length);
    const parts: GeminiPart[] = [];
    let at = 0;
    for (const marker of body.matchAll(BLOCK_MARKER)) {
      if ((marker.index ?? 0) < at) continue;
      const said = body.slice(at, marker.index);
      if (said !== '') parts.push({ kind: 'text', text: said, thought: false });
      const jsonStart = (marker.index ?? 0) + marker[0].length;
      const jsonEnd = body.indexOf('\n}\n```', jsonStart);
      at = jsonEnd < 0 ? body.length : jsonEnd + '\n}\n```'.length;
      let call: unknown;
      try {
        call = JSON.parse(body.slice(jsonStart, jsonEnd + 2));
      } catch {
        skipped++;
        continue;
      }
      if (!isObject(call)) continue;
      if (marker[1] === 'Command') parts.push({ kind: 'call', id: str(call.id), name: str(call.name), args: isObject(call.args) ? call.args : {} });
      else parts.push({ kind: 'response', id: str(call.id), name: str(call.name), response: call.response });
    }
    const rest = body.slice(at).replace(/\n+$/, '');
    if (rest !== '') parts.push({ kind: 'text', text: rest, thought: false });
    const role = header[1] === 'USER' ? 'user' : 'model';
    const previous = contents[contents.length - 1];
    if (role === 'model' && previous?.role === 'model') previous.parts.push(...parts);
    else contents.push({ role, parts });
  }
  for (const content of contents) {
    const first = content.parts[0];
    if (content.role !== 'model' || first?.kind !== 'text') continue;
    const reply = withoutThoughtSummaries(first.text.replaceAll('[Thought: true]', ''));
    if (reply !== first.text) content.parts.splice(0, 1, { kind: 'text', text: first.text.slice(0, first.text.length - reply.length), thought: true }, ...(reply !== '' ? [{ kind: 'text' as const, text: reply, thought: false }] : []));
  }
  return { contents, skipped };
}

/** The time a Gemini CLI call id carries (`name-<ms>-<hex>` or `name__name_<ms>_<n>`), in milliseconds. */
function idTime(id: string): number | undefined {
  const match = /(?:^|[-_])(1\d{12})(?:[-_]|$)/.exec(id);
  return match ? Number(match[1]) : undefined;
}

/**
 * A Gemini CLI chat history: consecutive model contents are one model call (one response: thoughts, text, function
 * calls); each function response follows its call. Left out: the model's thoughts, the summary Gemini CLI wrote when
 * it compressed its context (a user `<state_snapshot>` and the canned reply after it), a response repeated for a
 * call already answered; a response to no call (a command the user ran) is kept as a request. The history records no times: a call's time is the one its call
 * id (or its response's id) carries, if any; otherwise calls are 10 s apart from `start` (see settleTimes).
 */
export function fromGeminiCli(input: string, start = 0): ConvertedSession {
  const { contents, skipped } = /^\s*\[/.test(input) ? contentsOfJson(input) : contentsOfMarkdown(input);
  const messages: TimedMessage[] = [];
  const pending = new Map<string, { name: string; call: TimedMessage }>();
  const seen = new Set<string>();
  let cwd = '';
  let calls = 0;
  let afterSnapshot = false;
  let previousRole = '';
  for (const content of contents) {
    const said = content.parts.flatMap((part) => (part.kind === 'text' && !part.thought ? [part.text] : [])).join('');
    if (content.role === 'model') {
      const reply = afterSnapshot && said.trim() === COMPRESSION_ACK && !content.parts.some((part) => part.kind === 'call');
      afterSnapshot = false;
      if (reply) continue;
      const previous = messages[messages.length - 1];
      const call: TimedMessage = previousRole === 'model' && previous?.message.role === 'assistant' ? previous : { message: { role: 'assistant', content: [], model: 'unknown', timestamp: 0 } };
      if (call !== previous) messages.push(call);
      previousRole = 'model';
      if (said.trim() !== '') call.message.content.push(text(said));
      for (const part of content.parts) {
        if (part.kind !== 'call') continue;
        const id = part.id || `call_${calls}`;
        calls++;
        pending.set(id, { name: part.name, call });
        const at = idTime(id);
        if (at !== undefined) call.at = Math.min(call.at ?? at, at);
        call.message.content.push({ type: 'toolCall', id, ...geminiTool(part.name, part.args) });
      }
      continue;
    }
    previousRole = 'user';
    for (const part of content.parts) {
      if (part.kind !== 'response' || (part.id !== '' && seen.has(part.id))) continue;
      if (part.id !== '') seen.add(part.id);
      // Releases that wrote calls without ids answered them by name, in order.
      const id = pending.has(part.id) ? part.id : ([...pending].find(([, open]) => open.name === part.name)?.[0] ?? part.id);
      const open = pending.get(id);
      const output = responseText(part.response);
      if (!open) {
        // A response to no call in the history (a command the user ran): the model read it as input.
        messages.push({ message: { role: 'user', content: [text(output.text)], timestamp: 0 } });
        continue;
      }
      pending.delete(id);
      const at = idTime(part.id);
      if (at !== undefined && open.call.at === undefined) open.call.at = at;
      messages.push({ message: { role: 'toolResult', toolCallId: id, toolName: geminiTool(part.name, {}).name, content: [text(output.text)], isError: output.isError, timestamp: 0 } });
    }
    if (said.trimStart().startsWith('<state_snapshot>')) {
      afterSnapshot = true;
      continue;
    }
    cwd ||= /Workspace Directories:\*\*\s*\n\s*- (\S[^\n]*)/.exec(said)?.[1] ?? /working in the directory: (\S[^\n]*)/.exec(said)?.[1] ?? '';
    if (said.trim() !== '') messages.push({ message: { role: 'user', content: [text(said)], timestamp: 0 } });
  }
  // A model call left with nothing readable (its only call was a broken block, counted above) is left out.
  const entries = settleTimes(messages.filter(({ message }) => message.role !== 'assistant' || message.content.length > 0), start);
  return { cwd, model: 'unknown', start: entries[0]?.message.timestamp ?? start, entries, skippedLines: skipped };
}
