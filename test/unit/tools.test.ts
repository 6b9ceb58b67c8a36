// The built-in tools over a temp workspace: arguments, results, confirmations, trust, commands and the registry.
import { readFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCommandTool } from '../../src/core/tools/commandTool';
import { editFileTool, writeFileTool } from '../../src/core/tools/editTools';
import { findFilesTool, listDirTool, readFileTool, searchTextTool } from '../../src/core/tools/fileTools';
import { compileGlob } from '../../src/core/tools/globPattern';
import { ToolRegistry } from '../../src/core/tools/toolRegistry';
import { recordingAccess, tempWorkspace, toolContext, type TempWorkspace } from '../support/agentWorkspace';

let ws: TempWorkspace;

beforeEach(() => {
  ws = tempWorkspace();
  ws.write('src/main.ts', 'const a = 1;\nconst b = 2;\nconst a2 = 1;\n');
  ws.write('src/util/strings.ts', 'export const hello = "hello";\n');
  ws.write('README.md', '# Title\nhello world\n');
  ws.write('node_modules/pkg/index.ts', 'hello from a dependency\n');
});

afterEach(() => ws.cleanup());

describe('read tools', () => {
  it('read_file numbers lines, honours ranges, reports the file as read', async () => {
    const { access } = recordingAccess(ws.root);
    const all = await readFileTool.execute({ path: 'src/main.ts' }, toolContext(access));
    expect(all).toEqual({ text: '1\tconst a = 1;\n2\tconst b = 2;\n3\tconst a2 = 1;', isError: false, files: { read: ['src/main.ts'] } });
    const part = await readFileTool.execute('{"path":"src/main.ts","startLine":"2","endLine":2}', toolContext(access));
    expect(part.text).toBe('2\tconst b = 2;\n[src/main.ts: lines 2-2 of 3; read on with startLine 3]');
    const past = await readFileTool.execute({ path: 'src/main.ts', startLine: 9 }, toolContext(access));
    expect(past.isError).toBe(true);
    expect(past.text).toContain('has 3 lines');
  });

  it('bad arguments produce a clear error, never a throw', async () => {
    const { access } = recordingAccess(ws.root);
    const cases: unknown[] = [{}, { path: 3 }, '{not json', [1], { path: 'a', startLine: 0 }, { path: 'a', bogus: true }];
    for (const args of cases) {
      const result = await readFileTool.execute(args, toolContext(access));
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(/^read_file: /);
    }
    const missing = await readFileTool.execute({ path: 'nope.txt' }, toolContext(access));
    expect(missing).toMatchObject({ isError: true, text: 'read_file failed: No such file or folder.' });
  });

  it('list_dir, find_files and search_text see the workspace but skip node_modules', async () => {
    const { access } = recordingAccess(ws.root);
    expect((await listDirTool.execute({}, toolContext(access))).text).toBe('node_modules/\nsrc/\nREADME.md');
    expect((await findFilesTool.execute({ glob: '**/*.ts' }, toolContext(access))).text).toBe('src/main.ts\nsrc/util/strings.ts');
    expect((await findFilesTool.execute({ glob: 'strings.ts' }, toolContext(access))).text).toBe('src/util/strings.ts');
    const found = await searchTextTool.execute({ pattern: 'hello' }, toolContext(access));
    expect(found.text).toBe('README.md:2: hello world\nsrc/util/strings.ts:1: export const hello = "hello";');
    const regex = await searchTextTool.execute({ pattern: 'const a\\d?', isRegex: true, glob: 'src/**' }, toolContext(access));
    expect(regex.text.split('\n')).toEqual(['src/main.ts:1: const a = 1;', 'src/main.ts:3: const a2 = 1;']);
    const bad = await searchTextTool.execute({ pattern: '(', isRegex: true }, toolContext(access));
    expect(bad.isError).toBe(true);
    expect(bad.text).toContain('Invalid regular expression');
  });

  it('globs: ** spans folders, * stays in one, braces and classes work', () => {
    expect(compileGlob('src/**/*.ts').test('src/a/b/c.ts')).toBe(true);
    expect(compileGlob('src/**/*.ts').test('src/c.ts')).toBe(true);
    expect(compileGlob('src/*.ts').test('src/a/c.ts')).toBe(false);
    expect(compileGlob('*.{ts,md}').test('x/README.md')).toBe(true);
    expect(compileGlob('file[0-9].txt').test('file7.txt')).toBe(true);
    expect(compileGlob('a.b').test('axb')).toBe(false);
  });
});

describe('edit tools', () => {
  it('edit_file replaces one unique match after confirmation', async () => {
    const { access, requests } = recordingAccess(ws.root);
    const result = await editFileTool.execute({ path: 'src/main.ts', oldText: 'const b = 2;', newText: 'const b = 3;' }, toolContext(access));
    expect(result).toEqual({ text: 'Edited src/main.ts at line 2.', isError: false, files: { modified: ['src/main.ts'] } });
    expect(readFileSync(nodePath.join(ws.root, 'src/main.ts'), 'utf8')).toBe('const a = 1;\nconst b = 3;\nconst a2 = 1;\n');
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ kind: 'edit', after: 'const a = 1;\nconst b = 3;\nconst a2 = 1;\n' });
  });

  it('edit_file says clearly when the text is missing or not unique, and changes nothing', async () => {
    const { access, requests } = recordingAccess(ws.root);
    const missing = await editFileTool.execute({ path: 'src/main.ts', oldText: 'const z', newText: 'x' }, toolContext(access));
    expect(missing.isError).toBe(true);
    expect(missing.text).toContain('oldText was not found in src/main.ts');
    const twice = await editFileTool.execute({ path: 'src/main.ts', oldText: '= 1;', newText: '= 9;' }, toolContext(access));
    expect(twice.isError).toBe(true);
    expect(twice.text).toContain('occurs 2 times in src/main.ts (lines 1, 3)');
    expect(requests).toHaveLength(0);
    expect(readFileSync(nodePath.join(ws.root, 'src/main.ts'), 'utf8')).toBe('const a = 1;\nconst b = 2;\nconst a2 = 1;\n');
  });

  it('edit_file matches LF text in a CRLF file and keeps CRLF', async () => {
    ws.write('win.txt', 'one\r\ntwo\r\nthree\r\n');
    const { access } = recordingAccess(ws.root);
    const result = await editFileTool.execute({ path: 'win.txt', oldText: 'one\ntwo', newText: 'uno\ndos' }, toolContext(access));
    expect(result.isError).toBe(false);
    expect(readFileSync(nodePath.join(ws.root, 'win.txt'), 'utf8')).toBe('uno\r\ndos\r\nthree\r\n');
  });

  it('write_file creates folders; a declined confirmation changes nothing', async () => {
    const { access } = recordingAccess(ws.root);
    const ok = await writeFileTool.execute({ path: 'new/dir/f.txt', content: 'x\ny\n' }, toolContext(access));
    expect(ok).toMatchObject({ isError: false, files: { modified: ['new/dir/f.txt'] } });
    expect(readFileSync(nodePath.join(ws.root, 'new/dir/f.txt'), 'utf8')).toBe('x\ny\n');
    const declined = recordingAccess(ws.root, { allow: false });
    const no = await writeFileTool.execute({ path: 'README.md', content: 'gone' }, toolContext(declined.access));
    expect(no).toMatchObject({ isError: true, text: 'write_file failed: The user declined to write README.md.' });
    expect(readFileSync(nodePath.join(ws.root, 'README.md'), 'utf8')).toBe('# Title\nhello world\n');
  });
});

describe('untrusted workspace', () => {
  it('refuses write_file, edit_file and run_command without asking, but still reads', async () => {
    const { access, requests } = recordingAccess(ws.root, { trusted: false });
    const context = toolContext(access);
    const write = await writeFileTool.execute({ path: 'a.txt', content: 'x' }, context);
    const edit = await editFileTool.execute({ path: 'src/main.ts', oldText: 'const b', newText: 'let b' }, context);
    const run = await runCommandTool.execute({ command: 'echo hi > ran.txt' }, context);
    for (const result of [write, edit, run]) {
      expect(result.isError).toBe(true);
      expect(result.text).toContain('not trusted');
    }
    expect(requests).toHaveLength(0);
    expect((await readFileTool.execute({ path: 'README.md' }, context)).isError).toBe(false);
    expect((await listDirTool.execute({}, context)).text).not.toContain('ran.txt');
  });
});

describe('run_command', () => {
  it('returns combined output, the exit code, and runs in the workspace folder after confirmation', async () => {
    const { access, requests } = recordingAccess(ws.root);
    const ok = await runCommandTool.execute({ command: 'echo out; echo err 1>&2; pwd' }, toolContext(access));
    expect(ok.isError).toBe(false);
    expect(ok.text).toContain('out');
    expect(ok.text).toContain('err');
    expect(ok.text).toContain(ws.root);
    expect(requests).toEqual([{ kind: 'command', command: 'echo out; echo err 1>&2; pwd', cwd: ws.root }]);
    const failed = await runCommandTool.execute({ command: 'exit 3' }, toolContext(access));
    expect(failed).toEqual({ text: '[no output]\n[exit code 3]', isError: true });
  });

  it('stops a command at its timeout and when cancelled', async () => {
    const { access } = recordingAccess(ws.root);
    const slow = await runCommandTool.execute({ command: 'echo started; sleep 30', timeoutSeconds: 1 }, toolContext(access));
    expect(slow.isError).toBe(true);
    expect(slow.text).toContain('started');
    expect(slow.text).toContain('timed out');
    const controller = new AbortController();
    const pending = runCommandTool.execute({ command: 'sleep 30' }, toolContext(access, { signal: controller.signal }));
    setTimeout(() => controller.abort(), 50);
    const cancelled = await pending;
    expect(cancelled).toMatchObject({ isError: true });
    expect(cancelled.text).toContain('[cancelled by the user]');
  });

  it('bounds the output it keeps in memory', async () => {
    const { access } = recordingAccess(ws.root);
    const context = { ...toolContext(access), limits: { ...toolContext(access).limits, commandOutputChars: 1000 } };
    const result = await runCommandTool.execute({ command: 'seq 1 20000' }, context);
    expect(result.text.length).toBeLessThan(1200);
    expect(result.text.startsWith('1\n2\n3\n')).toBe(true);
    expect(result.text.trimEnd().endsWith('20000')).toBe(true);
    expect(result.text).toMatch(/characters of output dropped/);
  });
});

describe('ToolRegistry', () => {
  it('lists the built-ins, rejects unknown names clearly and wraps external tools', async () => {
    const registry = new ToolRegistry();
    expect(registry.names()).toEqual([
      'read_file', 'list_dir', 'find_files', 'search_text', 'write_file', 'edit_file', 'run_command', 'read_stored_output', 'read_transcript',
    ]);
    const { access } = recordingAccess(ws.root);
    const unknown = await registry.execute('rm_rf', {}, toolContext(access));
    expect(unknown.isError).toBe(true);
    expect(unknown.text).toContain('Unknown tool "rm_rf". Available tools: read_file');
    const seen: unknown[] = [];
    expect(registry.addExternal({ name: 'vscode.get-errors', description: 'd', inputSchema: { type: 'object' }, invoke: (args) => (seen.push(args), Promise.resolve('no errors')) })).toBe(true);
    expect(registry.addExternal({ name: 'read_file', description: 'd', inputSchema: {}, invoke: () => Promise.resolve('') })).toBe(false);
    expect(registry.definitions().map((d) => d.function.name)).toContain('vscode_get-errors');
    expect(await registry.execute('vscode_get-errors', '{"a":1}', toolContext(access))).toEqual({ text: 'no errors', isError: false });
    expect(seen).toEqual([{ a: 1 }]);
    registry.addExternal({ name: 'boom', description: 'd', inputSchema: {}, invoke: () => Promise.reject(new Error('kaput')) });
    expect(await registry.execute('boom', {}, toolContext(access))).toEqual({ text: 'boom failed: kaput', isError: true });
  });
});
