// The converters of Gemini CLI histories, Cline / Roo Code task exports and Crush sessions (scripts/convertSessions.mjs), on excerpts of the public sessions they convert.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { folderWorkloads } from '../../bench/costWorkloads';
import { convertSession, fromClineExport, fromCrush, fromGeminiCli, piSessionJsonl, type ConvertedSession, type SessionKind } from '../../bench/sessionConverters';

/** The converted session as the bench reads it: written to a folder and loaded as a workload. */
function asWorkload(converted: ConvertedSession, kind: SessionKind) {
  const dir = mkdtempSync(nodePath.join(tmpdir(), 'converted-'));
  writeFileSync(nodePath.join(dir, `${kind}-s.jsonl.gz`), gzipSync(piSessionJsonl('s', kind, converted, 'owner/repo@abc path')));
  const [workload] = folderWorkloads(dir, false);
  return workload;
}

const START = Date.UTC(2026, 3, 6, 23, 20, 0);
const user = (...parts: unknown[]) => ({ role: 'user', parts });
const model = (...parts: unknown[]) => ({ role: 'model', parts });
const call = (name: string, args: unknown, id: string) => ({ functionCall: { name, args, id } });
const answer = (name: string, output: unknown, id: string) => ({ functionResponse: { id, name, response: output } });

describe('Gemini CLI histories', () => {
  // An excerpt of google-gemini/gemini-cli@19b9e3e8 trajectory.json (a /chat share file.json export), outputs shortened.
  const history = [
    user({ text: '<session_context>\nThis is the Gemini CLI.\n- **Workspace Directories:**\n  - /Users/ntaylormullen/GitHub/gemini-cli2\n</session_context>' }),
    user({ text: '<state_snapshot>\n    <overall_goal>Implement a comprehensive "Agent Teams" feature</overall_goal>\n</state_snapshot>' }),
    model({ text: 'Got it. Thanks for the additional context!' }),
    user({ text: "agent teams shouldn't persist, I want it to ask me every boot" }),
    model({ text: '**Eliminating Team Persistence** I am focusing on preventing the "activeTeam" from being remembered.', thought: true }, call('read_file', { file_path: 'packages/cli/src/ui/AppContainer.tsx' }, 'baj5oogb')),
    user(answer('read_file', { output: 'export const AppContainer = () => {};' }, 'baj5oogb')),
    model({ text: '**Refining the Edit** Checking the wizard.', thought: true }),
    model(call('replace', { file_path: 'packages/cli/src/ui/AppContainer.tsx', old_string: 'a', new_string: 'b', instruction: 'x' }, 'p05z8qkm')),
    user(answer('replace', { error: 'Failed to edit, could not find the string to replace.' }, 'p05z8qkm')),
    model(call('run_shell_command', { command: 'npm run build', description: 'Build.' }, 'h65zmevf')),
    user(answer('run_shell_command', { output: 'Output: built' }, 'h65zmevf')),
    model({ text: "I've removed the persistence; the CLI asks for a team at every boot." }),
    user(answer('run_shell_command', { output: 'Output: [ntm/agentteamscli 1a2b3c] commit' }, 'nlcjynug')),
    model(call('update_topic', { title: 'Done' }, 'licb4xrj')),
  ];

  it('reads a /chat share JSON export: thoughts, the compression summary and its canned reply left out, tools as pi names, calls 10 s apart', () => {
    const converted = fromGeminiCli(JSON.stringify(history), START);
    expect(converted).toMatchObject({ cwd: '/Users/ntaylormullen/GitHub/gemini-cli2', model: 'unknown', skippedLines: 0 });
    const workload = asWorkload(converted, 'gemini-cli');
    expect(JSON.stringify(workload)).not.toMatch(/Eliminating Team|Refining the Edit|state_snapshot|Got it\. Thanks/);
    const [context, request, userRan] = workload?.turns ?? [];
    expect(context?.user).toContain('<session_context>');
    expect(request?.user).toBe("agent teams shouldn't persist, I want it to ask me every boot");
    // The two model contents in a row are one call; a failed edit is an error; the closing reply is the turn's final.
    expect(request?.steps.map((step) => step.calls.map((c) => [c.name, c.isError]))).toEqual([[['read_file', false]], [['edit_file', true]], [['run_command', false]]]);
    expect(JSON.parse(request?.steps[1]?.calls[0]?.args ?? '{}')).toEqual({ path: 'packages/cli/src/ui/AppContainer.tsx', oldText: 'a', newText: 'b' });
    expect(request?.steps[0]?.calls[0]?.output).toBe('export const AppContainer = () => {};');
    expect(request?.final).toBe("I've removed the persistence; the CLI asks for a team at every boot.");
    expect(request?.times).toEqual([10, 20, 30, 40]);
    // A response to no call in the history (a command the user ran) is what the model read next: a request.
    expect(userRan?.user).toBe('Output: [ntm/agentteamscli 1a2b3c] commit');
    expect(userRan?.steps[0]?.calls[0]?.name).toBe('update_topic');
  });

  it('refuses what is not a history with a message that says what it expected', () => {
    expect(() => fromGeminiCli('[{"role": "user", "parts": [')).toThrow(/Not a Gemini CLI history \(JSON\)/);
    expect(() => fromGeminiCli(' [1')).toThrow(/Not a Gemini CLI history/);
  });

  // Excerpts of Manamama-Gemini-Cloud-AI-01/audioset_tagging_cnn a.md (2026-06) and duck1.md (2026-02): /chat share file.md exports.
  const markdown = [
    '## USER 🧑‍💻\n\nThe current code is running, but is producing weird CPU spikes.',
    // Thought summaries glued to each other and to the calls (parts are joined with nothing between them).
    '## MODEL ✨\n\n**Analyzing CPU Usage Patterns** I\'m investigating the reported CPU anomalies.**Investigating Processing Spikes** I\'m observing that CPU usage spikes align with chunks.**Tool Command**:\n```json\n{\n  "id": "read_file__read_file_1780664537824_0",\n  "name": "read_file",\n  "args": {\n    "file_path": "pytorch/audioset_tagging_cnn_inference_6.py"\n  }\n}\n```',
    '## USER 🧑‍💻\n\n**Tool Response**:\n```json\n{\n  "id": "read_file__read_file_1780664537824_0",\n  "name": "read_file",\n  "response": {\n    "output": "#!/usr/bin/env python3\\nimport os"\n  }\n}\n```',
    // The export repeats a response block; the model answered once.
    '## USER 🧑‍💻\n\n**Tool Response**:\n```json\n{\n  "id": "read_file__read_file_1780664537824_0",\n  "name": "read_file",\n  "response": {\n    "output": "#!/usr/bin/env python3\\nimport os"\n  }\n}\n```',
    '## MODEL ✨\n\n**Observing Periodicity** I\'m seeing spikes around 20-25 second intervals.**Analyzing Swapping** My focus has shifted to the swapping behavior.The monitoring data and your screenshot reveal a clear pattern: the process is **swapping**.\n\n### Key Observations:\n1. Memory-IO lockstep.',
    '## USER 🧑‍💻\n\nRead @prob2.md and do.',
    // An older release: the call has no id, its response has one (with the time it was made).
    'I will begin by exploring the results directory.**Tool Command**:\n```json\n{\n  "name": "list_directory",\n  "args": {\n    "dir_path": "/home/zezen/results"\n  }\n}\n```',
    '## USER 🧑‍💻\n\n**Tool Response**:\n```json\n{\n  "id": "list_directory_1780664600000_0",\n  "name": "list_directory",\n  "response": {\n    "output": "Directory listing for /home/zezen/results:\\n\\n\\n(8 ignored)"\n  }\n}\n```',
    '## MODEL ✨\n\n**Tool Command**:\n```json\n{\n  "name": "run_shell_command",\n  "args": {\n    "command": "ls -a /home/zezen/results"\n  }\n  broken\n}\n```',
  ].join('\n\n---\n\n').replace('\n\n---\n\nI will begin', '\n\n---\n\n## MODEL ✨\n\nI will begin');

  it('reads a /chat share Markdown export: glued thought summaries split off the reply, call times from call ids, repeated and broken blocks left out', () => {
    const converted = fromGeminiCli(markdown, START);
    expect(converted.skippedLines).toBe(1);
    expect(converted.entries.map((e) => e.message.role)).toEqual(['user', 'assistant', 'toolResult', 'assistant', 'user', 'assistant', 'toolResult']);
    const turns = asWorkload(converted, 'gemini-cli')?.turns ?? [];
    expect(turns.map((turn) => turn.user)).toEqual(['The current code is running, but is producing weird CPU spikes.', 'Read @prob2.md and do.']);
    const [first, second] = turns;
    expect(first?.steps).toHaveLength(1);
    expect(first?.steps[0]).toMatchObject({ text: '', calls: [{ name: 'read_file', output: '#!/usr/bin/env python3\nimport os', isError: false }] });
    expect(first?.final).toBe('The monitoring data and your screenshot reveal a clear pattern: the process is **swapping**.\n\n### Key Observations:\n1. Memory-IO lockstep.');
    expect(JSON.stringify(turns)).not.toMatch(/Analyzing CPU|Investigating Processing|Observing Periodicity|Analyzing Swapping/);
    expect(second?.steps.map((step) => [step.text, step.calls[0]?.name, step.calls[0]?.output])).toEqual([
      ['I will begin by exploring the results directory.', 'list_directory', 'Directory listing for /home/zezen/results:\n\n\n(8 ignored)'],
    ]);
    // Seconds from the first call (its id's time): the reply has none and comes 10 s later; the next call's response id carries its time.
    expect(converted.start).toBe(1780664537824);
    expect([...(first?.times ?? []), ...(second?.times ?? [])]).toEqual([0, 10, 62.176]);
  });
});

describe('Cline and Roo Code task exports', () => {
  // An excerpt of thetom42/Python-Perplexica cline/02 (Cline, 2024: no times recorded, `[tool Result]` heads, a tool tag glued to the text).
  const cline = [
    '**User:**\n\n[attempt_completion Result]\n\nThe user has provided feedback on the results.\n<feedback>\nCan you rewrite the whole src subdir in python?\n</feedback>\n<environment_details>\n# VSCode Visible Files\n(No visible files)\n\n# Current Working Directory (/home/the/src/repos/other/perplexica) Files\nREADME.md\n</environment_details>',
    "**Assistant:**\n\n<thinking>\nStart with the entry point.\n</thinking>\nCertainly, I'll start with main.py.\n<write_to_file>\n<path>\nbackend/main.py\n</path>\n<content>\nfrom fastapi import FastAPI\napp = FastAPI()\n</content>\n</write_to_file>",
    '**User:**\n\n[write_to_file Result]\n\nThe content was successfully saved to backend/main.py.\n<environment_details>\n# VSCode Visible Files\nbackend/main.py\n</environment_details>',
    "**Assistant:**\n\nFirst, let's read the config:<read_file>\n<path>backend/config.py</path>\n</read_file>",
    "**User:**\n\n[read_file for 'backend/config.py'] Result:\nThe tool execution failed with the following error:\n<error>\nFile not found\n</error>",
    '**Assistant:**\n\nIs there any specific area you would like more help with?',
    '**User:**\n\n[ERROR] You did not use a tool in your previous response! Please retry with a tool use.',
    '**Assistant:**\n\n<attempt_completion>\n<result>\nThe backend is in place.\n</result>\n<command>\ncd backend && uvicorn main:app\n</command>\n</attempt_completion>',
  ].join('\n\n---\n\n');

  it('reads a Cline export: one model call a reply, its XML tool call as a pi call, the next block its result verbatim, calls 10 s apart without recorded times', () => {
    const converted = fromClineExport(`Exported task\n${cline}`, START);
    expect(converted).toMatchObject({ cwd: '/home/the/src/repos/other/perplexica', model: 'unknown', skippedLines: 1 });
    const turns = asWorkload(converted, 'cline')?.turns ?? [];
    expect(turns.map((turn) => turn.user.split('\n')[0])).toEqual(['[attempt_completion Result]', '[ERROR] You did not use a tool in your previous response! Please retry with a tool use.']);
    const [task, retry] = turns;
    expect(task?.steps.map((step) => [step.text, step.calls[0]?.name, step.calls[0]?.isError])).toEqual([
      ["<thinking>\nStart with the entry point.\n</thinking>\nCertainly, I'll start with main.py.", 'write_file', false],
      ["First, let's read the config:", 'read_file', true],
    ]);
    expect(JSON.parse(task?.steps[0]?.calls[0]?.args ?? '{}')).toEqual({ path: 'backend/main.py', content: 'from fastapi import FastAPI\napp = FastAPI()' });
    expect(task?.steps[0]?.calls[0]?.output).toBe('[write_to_file Result]\n\nThe content was successfully saved to backend/main.py.\n<environment_details>\n# VSCode Visible Files\nbackend/main.py\n</environment_details>');
    expect(task?.final).toBe('Is there any specific area you would like more help with?');
    expect(task?.times).toEqual([10, 20, 30]);
    expect(retry?.steps[0]?.calls[0]).toMatchObject({ name: 'attempt_completion', args: JSON.stringify({ result: 'The backend is in place.', command: 'cd backend && uvicorn main:app' }) });
  });

  // An excerpt of InferQ/ART ART-Concept/roo_task_apr-29-2025_1-16-47-am.md (Roo Code: local times day first, the model in the mode section).
  const roo = [
    '**User:**\n\n<task>\nExplore how prompt management is handled.\n</task>\n<environment_details>\n# Current Time\n28/04/2025, 1:17:27 pm (Asia/Colombo, UTC+5:30)\n\n# Current Mode\n<slug>architect</slug>\n<model>copilot/gemini-2.5-pro</model>\n\n# Current Workspace Directory (/Users/hashanw/Developer/InferQ/ART) Files\nREADME.md\n</environment_details>',
    "**Assistant:**\n\nLet's start by reading the file.\n\n<read_file>\n<path>ART-Prompt-Management-Refactor-PRD.md</path>\n</read_file>",
    "**User:**\n\n[read_file for 'ART-Prompt-Management-Refactor-PRD.md'] Result:\n<file><path>ART-Prompt-Management-Refactor-PRD.md</path>\n<content lines=\"1-2\">\n 1 | # ART Prompt Management\n</content>\n</file>\n<environment_details>\n# Current Time\n28/04/2025, 11:59:12 pm (Asia/Colombo, UTC+5:30)\n</environment_details>",
    '**Assistant:**\n\nI will now add the compatibility details.\n\n<apply_diff>\n<path>ART-Prompt-Management-Refactor-PRD.md</path>\n<diff>\n<<<<<<< SEARCH\n:start_line:44\n-------\n    *   [ ] Define `ArtStandardMessage`\n\n[Response interrupted by a tool use result. Only one tool may be used at a time and should be placed at the end of the message.]',
    "**User:**\n\n[apply_diff for 'ART-Prompt-Management-Refactor-PRD.md'] Result:\nThe tool execution failed with the following error:\n<error>\nInvalid diff format\n</error>\n<environment_details>\n# Current Time\n28/04/2025, 11:59:32 pm (Asia/Colombo, UTC+5:30)\n</environment_details>",
  ].join('\n\n---\n\n');

  it('reads a Roo Code export: times from the environment details (day first, with their UTC offset), the model from the mode section, a call cut short by the agent', () => {
    const converted = convertSession('roo-code', roo);
    expect(converted).toMatchObject({ cwd: '/Users/hashanw/Developer/InferQ/ART', model: 'copilot/gemini-2.5-pro', start: Date.UTC(2025, 3, 28, 7, 47, 27) });
    const [turn] = asWorkload(converted, 'roo-code')?.turns ?? [];
    expect(turn?.steps.map((step) => [step.calls[0]?.name, step.calls[0]?.isError])).toEqual([['read_file', false], ['apply_diff', true]]);
    expect(JSON.parse(turn?.steps[1]?.calls[0]?.args ?? '{}')).toEqual({ path: 'ART-Prompt-Management-Refactor-PRD.md', diff: '<<<<<<< SEARCH\n:start_line:44\n-------\n    *   [ ] Define `ArtStandardMessage`' });
    expect(turn?.steps[1]?.text).toBe('I will now add the compatibility details.\n\n[Response interrupted by a tool use result. Only one tool may be used at a time and should be placed at the end of the message.]');
    // Each call is made when the request or result before it was sent: 1:17:27 pm, then 11:59:12 pm.
    expect(turn?.times).toEqual([0, 38505]);
  });
});

describe('Crush sessions', () => {
  /** A row of Crush's messages table as `sqlite3 -json` prints it: `parts` is the JSON text Crush stores. */
  const row = (role: string, createdAt: number | string, parts: unknown[], extra: Record<string, unknown> = {}) => ({ role, parts: JSON.stringify(parts), model: role === 'assistant' ? 'qwen/qwen3-coder:free' : '', created_at: createdAt, ...extra });
  const said = (value: string) => ({ type: 'text', data: { text: value } });
  const called = (id: string, name: string, input: unknown) => ({ type: 'tool_call', data: { id, name, input: JSON.stringify(input), type: 'function', finished: true } });
  const result = (id: string, content: string, isError = false) => ({ type: 'tool_result', data: { tool_call_id: id, name: '', content, metadata: '', is_error: isError } });
  const finish = (reason: string, time = 0) => ({ type: 'finish', data: { reason, time } });

  // An excerpt of rnwolf/dbr@37e2b348 .crush/crush.db (session 9da7d0cd, Crush 2025-08, Windows paths), and of
  // AndresGaibor/cisco-auto@c490718f (session e369aabc, 2026-04: an API error row, the summary row), outputs shortened.
  const rows = [
    row('assistant', 1754315290, [{ type: 'finish', data: { reason: 'error', time: 1754315290, message: 'API Error', details: 'POST "https://openrouter.ai/api/v1/chat/completions": 404 Not Found' } }]),
    row('user', 1754315346, [said('Please analyze this codebase and create a **CRUSH.md** file.'), finish('stop')]),
    row('assistant', 1754315346, [called('call_aba37d17', 'ls', { path: '.' }), finish('tool_use', 1754315350)]),
    row('tool', 1754315350, [result('call_aba37d17', '- C:\\Users\\rnwol\\workspace\\dbr\\\n  - .agent.md'), finish('stop')]),
    row('assistant', 1754315354, [{ type: 'reasoning', data: { thinking: 'The user wants guidelines; read the rules first.' } }, called('call_6025a670', 'view', { file_path: 'GEMINI.md' }), called('call_75e6dd31', 'view', { file_path: '.cursorrules' }), finish('tool_use', 1754315371)]),
    row('tool', 1754315362, [result('call_6025a670', '<file>\n     1|# Development Guidelines\n</file>'), finish('stop')]),
    row('tool', 1754315371, [result('call_75e6dd31', 'File not found: C:\\Users\\rnwol\\workspace\\dbr\\.cursorrules', true), finish('stop')]),
    row('assistant', 1754315400, [said('I will fix the test step.'), called('call_f6bc0fd4', 'edit', { file_path: 'tests/test_steps.py', old_string: 'a = 1', new_string: 'a = 2', replace_all: false }), finish('tool_use', 1754315410)]),
    row('tool', 1754315410, [result('call_f6bc0fd4', 'old_string not found in file. Make sure it matches exactly, including whitespace and line breaks', true), finish('stop')]),
    row('assistant', 1754315420, [said('# RESUMEN COMPLETO DE LA CONVERSACIÓN\n\n## Problema Original'), finish('end_turn', 1754315430)], { is_summary_message: 1, is_summary: 1 }),
    row('user', 1754315705, [said('continua'), finish('stop')]),
    row('assistant', 1754315705, [called('call_be7178f4', 'bash', { command: 'uv run pytest tests_bdd -v -s' }), { type: 'finish', data: { reason: 'permission_denied', time: 1754315734, message: 'Permission denied' } }]),
    row('tool', 1754315734, [result('call_be7178f4', 'Permission denied', true), finish('stop')]),
    row('assistant', 1754315740, [said('I created CRUSH.md with the build and test commands.'), finish('end_turn', 1754315757)]),
  ];

  it('reads the rows of a session: one model call an assistant row, its tool results verbatim after it, tools as pi names, recorded times; reasoning, the summary and API-error rows left out', () => {
    const converted = convertSession('crush', JSON.stringify(rows));
    expect(converted).toMatchObject({ model: 'qwen/qwen3-coder:free', start: 1754315346000, skippedLines: 2 });
    const turns = asWorkload(converted, 'crush')?.turns ?? [];
    expect(JSON.stringify(turns)).not.toMatch(/read the rules first|RESUMEN COMPLETO|API Error/);
    expect(turns.map((turn) => turn.user)).toEqual(['Please analyze this codebase and create a **CRUSH.md** file.', 'continua']);
    const [task, resumed] = turns;
    // Two calls in one row are one model call; each output follows its own call.
    expect(task?.steps.map((step) => step.calls.map((c) => [c.name, c.output, c.isError]))).toEqual([
      [['ls', '- C:\\Users\\rnwol\\workspace\\dbr\\\n  - .agent.md', false]],
      [
        ['read_file', '<file>\n     1|# Development Guidelines\n</file>', false],
        ['read_file', 'File not found: C:\\Users\\rnwol\\workspace\\dbr\\.cursorrules', true],
      ],
      [['edit_file', 'old_string not found in file. Make sure it matches exactly, including whitespace and line breaks', true]],
    ]);
    expect(JSON.parse(task?.steps[1]?.calls[0]?.args ?? '{}')).toEqual({ path: 'GEMINI.md' });
    expect(JSON.parse(task?.steps[2]?.calls[0]?.args ?? '{}')).toEqual({ path: 'tests/test_steps.py', oldText: 'a = 1', newText: 'a = 2' });
    expect(task?.steps[2]?.text).toBe('I will fix the test step.');
    // Seconds from the turn's first call, as recorded (created_at in Unix seconds).
    expect(task?.times).toEqual([0, 8, 54]);
    expect(resumed?.steps[0]?.calls[0]).toMatchObject({ name: 'run_command', args: JSON.stringify({ command: 'uv run pytest tests_bdd -v -s' }), output: 'Permission denied', isError: true });
    expect(resumed?.final).toBe('I created CRUSH.md with the build and test commands.');
  });

  it('reads the ISO text times of early OpenCode (Go) stores, the same tables (tuist/Noora@fd057cd1 .opencode/opencode.db, shortened)', () => {
    const noora = [
      row('user', '2025-05-28T11:05:58.133000Z', [said("We're moving our CLI design system to a monorepo."), finish('stop')]),
      row('assistant', '2025-05-28T11:05:58.133000Z', [called('toolu_01V1gRQh', 'bash', { command: 'git log --oneline -5' }), finish('tool_use')]),
      row('tool', '2025-05-28T11:06:03.651000Z', [result('toolu_01V1gRQh', '738bd92 init'), finish('stop')]),
      row('assistant', '2025-05-28T11:06:03.653000Z', [said('Now let me check the cliff configuration.'), called('toolu_01WrwZ68', 'view', { file_path: 'cli/cliff.toml' }), finish('tool_use')]),
    ];
    const converted = fromCrush(JSON.stringify(noora));
    expect(converted.entries.map((e) => e.message.timestamp)).toEqual([1748430358133, 1748430358133, 1748430363651, 1748430363653]);
  });

  it('says when the input is not a session export: no messages and the input counted unreadable', () => {
    expect(fromCrush('{"role": "user"}')).toMatchObject({ entries: [], skippedLines: 1 });
    expect(fromCrush('[{"role": "user", "parts": "[broken"}]')).toMatchObject({ entries: [], skippedLines: 1 });
  });
});
