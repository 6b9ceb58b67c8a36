// The converters of OpenCode session exports and Copilot CLI event logs (scripts/convertSessions.mjs), on excerpts of the public sessions Entire.io stored for them.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { folderWorkloads } from '../../bench/costWorkloads';
import { convertSession, fromCopilotCli, fromOpenCode, piSessionJsonl, type ConvertedSession, type SessionKind } from '../../bench/sessionConverters';

/** The converted session as the bench reads it: written to a folder and loaded as a workload. */
function asWorkload(converted: ConvertedSession, kind: SessionKind) {
  const dir = mkdtempSync(nodePath.join(tmpdir(), 'converted-'));
  writeFileSync(nodePath.join(dir, `${kind}-s.jsonl.gz`), gzipSync(piSessionJsonl('s', kind, converted, 'owner/repo@abc path')));
  const [workload] = folderWorkloads(dir, false);
  return workload;
}

describe('OpenCode session exports', () => {
  const T = 1776121348407;
  const step = { type: 'step-start', snapshot: 'aa696ea7' };
  const done = { type: 'step-finish', reason: 'tool-calls', tokens: { input: 1834, output: 261 } };
  const tool = (callID: string, name: string, input: unknown, status: string, result: string, end: number) => ({
    type: 'tool',
    tool: name,
    callID,
    state: { status, input, ...(status === 'error' ? { error: result } : { output: result }), time: { start: end - 100, end } },
  });
  const user = (created: number, ...parts: unknown[]) => ({ info: { role: 'user', time: { created } }, parts });
  const assistant = (created: number, parts: unknown[], extra: Record<string, unknown> = {}) => ({ info: { role: 'assistant', modelID: 'claude-sonnet-4.6', time: { created }, ...extra }, parts });
  // An excerpt of savekirk/session-bridge entire/checkpoints/v1 13/dddd416599/0/full.jsonl (OpenCode 1.4.3), outputs shortened.
  const session = {
    info: { id: 'ses_277daa810ffePOBsdfS6gm8uA2', directory: '/Users/savekirk/dev/ai/entire/session-bridge', version: '1.4.3' },
    messages: [
      user(T, { type: 'text', text: 'Implement the commands https://docs.entire.io/cli/commands.md' }),
      assistant(T + 5000, [step, { type: 'reasoning', text: 'Let me read the extension entry point first.' }, { type: 'text', text: 'Reading the extension.' }, tool('toolu_01A', 'read', { filePath: 'src/extension.ts' }, 'completed', '<file>\n00001| import * as vscode from \'vscode\';\n</file>', T + 9000), done, { type: 'patch', hash: 'aa696ea7', files: [] }]),
      assistant(T + 116380, [step, tool('toolu_01B', 'write', { filePath: 'src/entireCommand.ts', content: 'export {};' }, 'error', 'You must read file src/entireCommand.ts before overwriting it. Use the Read tool first', T + 144597), done]),
      assistant(T + 150000, [step, tool('toolu_01C', 'edit', { filePath: 'src/extension.ts', oldString: 'a', newString: 'b', replaceAll: false }, 'completed', 'Edit applied successfully.', T + 151000), done]),
      user(T + 200000, { type: 'compaction', auto: true }),
      assistant(T + 201000, [step, { type: 'text', text: '## Goal\nImplement the Entire CLI commands in the extension.' }, done], { summary: true }),
      user(T + 300000, { type: 'text', text: 'Called the Read tool with the following input: {"filePath":"docs/commands.md"}', synthetic: true }, { type: 'file', mime: 'text/plain', filename: 'commands.md' }, { type: 'text', text: 'now add the doctor command' }),
      assistant(T + 301000, [], { error: { name: 'MessageAbortedError' } }),
    ],
  };

  it('reads an export: one model call an assistant message, its tool outputs verbatim after it, tools as pi names, recorded times; reasoning, the compaction request, the summary and an aborted message left out', () => {
    const converted = fromOpenCode(JSON.stringify(session));
    expect(converted).toMatchObject({ cwd: '/Users/savekirk/dev/ai/entire/session-bridge', model: 'claude-sonnet-4.6', start: T, skippedLines: 3 });
    const turns = asWorkload(converted, 'opencode')?.turns ?? [];
    expect(JSON.stringify(turns)).not.toMatch(/read the extension entry point|## Goal|compaction/);
    expect(turns.map((turn) => turn.user)).toEqual(['Implement the commands https://docs.entire.io/cli/commands.md', 'Called the Read tool with the following input: {"filePath":"docs/commands.md"}\n\nnow add the doctor command']);
    const [task] = turns;
    expect(task?.steps.map((step) => [step.text, step.calls.map((c) => [c.name, c.output, c.isError])])).toEqual([
      ['Reading the extension.', [['read_file', "<file>\n00001| import * as vscode from 'vscode';\n</file>", false]]],
      ['', [['write_file', 'You must read file src/entireCommand.ts before overwriting it. Use the Read tool first', true]]],
      ['', [['edit_file', 'Edit applied successfully.', false]]],
    ]);
    expect(JSON.parse(task?.steps[2]?.calls[0]?.args ?? '{}')).toEqual({ path: 'src/extension.ts', oldText: 'a', newText: 'b' });
    expect(task?.times).toEqual([5, 116.38, 150]);
  });

  it('refuses what is not an export: nothing read, the input counted unreadable', () => {
    expect(convertSession('opencode', '{"info": {}}')).toMatchObject({ entries: [], skippedLines: 1 });
    expect(fromOpenCode('[{"info"')).toMatchObject({ entries: [], skippedLines: 1 });
  });
});

describe('Copilot CLI event logs', () => {
  const at = (seconds: number) => new Date(Date.UTC(2026, 6, 24, 10, 45, 0) + seconds * 1000).toISOString();
  const event = (type: string, seconds: number, data: Record<string, unknown>) => JSON.stringify({ type, data, id: `e${seconds}`, timestamp: at(seconds) });
  const request = (id: string, name: string, args: unknown) => ({ toolCallId: id, name, arguments: args, type: 'function' });
  // An excerpt of polecatspeaks/StarCar entire/checkpoints/v1 4b/a9fe109041/0/full.jsonl (Copilot CLI 1.0.74), shortened.
  const log = [
    event('session.start', 0, { sessionId: 'e07fc822', producer: 'copilot-agent', context: { cwd: 'C:\\Users\\Chris\\git\\starcar' } }),
    event('system.message', 1, { role: 'system', content: 'You are the GitHub Copilot CLI, a terminal assistant built by GitHub.' }),
    event('user.message', 2, { content: 'good morning claude. Please pick up where we left off.', transformedContent: '<current_datetime>2026-07-24T06:45:25.233-04:00</current_datetime>\n\ngood morning claude. Please pick up where we left off.' }),
    event('user.message', 4, { source: 'system', content: '<system_reminder>\nIMPORTANT: The tools listed below are deferred.\n</system_reminder>' }),
    event('hook.start', 5, { hookType: 'preToolUse' }),
    event('assistant.message', 8, { model: 'claude-fable-5', content: '', reasoningText: 'Check the git state first.', toolRequests: [request('toolu_A', 'powershell', { command: 'git status -sb', description: 'Check git state' }), request('toolu_B', 'view', { path: 'C:\\Users\\Chris\\git\\starcar\\docs\\friction-log.md', view_range: [1, 40] })] }),
    event('tool.execution_complete', 10, { toolCallId: 'toolu_A', success: true, result: { content: '## dev...origin/dev', detailedContent: '$ git status -sb\n## dev...origin/dev' } }),
    event('tool.execution_complete', 11, { toolCallId: 'toolu_B', success: false, error: { message: 'Denied by preToolUse hook from "repo settings" (hook errored)', code: 'denied' } }),
    event('assistant.message', 15, { model: 'claude-fable-5', content: 'Dispatching the Car 46 fix cycle now.', toolRequests: [request('toolu_C', 'task', { agent_type: 'car', prompt: '# Car 46 FIX CYCLE' })] }),
    event('user.message', 16, { source: 'agent-e07fc822', content: '# Car 46 FIX CYCLE\n\nYou are an implementer car.' }),
    event('assistant.message', 20, { model: 'claude-opus-4.8', content: '', parentToolCallId: 'toolu_C', toolRequests: [request('toolu_D', 'powershell', { command: 'go test ./...' })] }),
    event('tool.execution_complete', 25, { toolCallId: 'toolu_D', parentToolCallId: 'toolu_C', success: true, result: { content: 'ok' } }),
    event('tool.execution_complete', 30, { toolCallId: 'toolu_C', success: true, result: { content: 'Agent started in background with agent_id: car46-fix-cycle.' } }),
    event('session.compaction_complete', 35, { success: true, summaryContent: '<overview>\nThe owner resumed a StarCar session.\n</overview>' }),
    event('system.notification', 40, { content: '<system_notification>\nAgent "car46-fix-cycle" (car) has finished processing and is now idle.\n</system_notification>' }),
    event('assistant.message', 44, { model: 'claude-fable-5', content: 'Car 46 is done; the fix cycle passed.', toolRequests: [] }),
    '{"type": "tool.execution_complete", "data": ',
  ].join('\n');

  it('reads the main agent: one call an assistant message, results verbatim after it, tools as pi names, event times; sub-agents, reasoning, the system prompt and the compaction summary left out', () => {
    const converted = convertSession('copilot-cli', log);
    expect(converted).toMatchObject({ cwd: 'C:\\Users\\Chris\\git\\starcar', model: 'claude-fable-5', skippedLines: 1 });
    const turns = asWorkload(converted, 'copilot-cli')?.turns ?? [];
    expect(JSON.stringify(turns)).not.toMatch(/Check the git state first|implementer car|go test|<overview>|GitHub Copilot CLI, a terminal/);
    // A user message and the system reminder after it are one request; a notification is the next one.
    expect(turns.map((turn) => turn.user)).toEqual([
      '<current_datetime>2026-07-24T06:45:25.233-04:00</current_datetime>\n\ngood morning claude. Please pick up where we left off.\n\n<system_reminder>\nIMPORTANT: The tools listed below are deferred.\n</system_reminder>',
      '<system_notification>\nAgent "car46-fix-cycle" (car) has finished processing and is now idle.\n</system_notification>',
    ]);
    const [morning, notified] = turns;
    expect(morning?.steps.map((step) => [step.text, step.calls.map((c) => [c.name, c.output, c.isError])])).toEqual([
      ['', [['run_command', '## dev...origin/dev', false], ['read_file', 'Denied by preToolUse hook from "repo settings" (hook errored)', true]]],
      ['Dispatching the Car 46 fix cycle now.', [['task', 'Agent started in background with agent_id: car46-fix-cycle.', false]]],
    ]);
    expect(JSON.parse(morning?.steps[0]?.calls[0]?.args ?? '{}')).toEqual({ command: 'git status -sb' });
    // Seconds from the request to each call, as recorded.
    expect(morning?.times).toEqual([6, 13]);
    expect(notified?.final).toBe('Car 46 is done; the fix cycle passed.');
    expect(fromCopilotCli('not json\n{"type": 1}').entries).toEqual([]);
  });
});
