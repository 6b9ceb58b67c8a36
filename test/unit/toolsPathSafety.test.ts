// Path safety: hostile paths are refused by every file tool with a message naming the path; safe ones work.
import { symlinkSync } from 'node:fs';
import * as nodePath from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileTool, listDirTool } from '../../src/core/tools/fileTools';
import { writeFileTool } from '../../src/core/tools/editTools';
import { resolveLexically } from '../../src/core/tools/pathSafety';
import { recordingAccess, tempWorkspace, toolContext, type TempWorkspace } from '../support/agentWorkspace';

let ws: TempWorkspace;

beforeEach(() => {
  ws = tempWorkspace();
  ws.write('src/a.txt', 'inside\n');
  ws.write('../outside/secret.txt', 'TOP SECRET\n');
  symlinkSync(ws.outside, nodePath.join(ws.root, 'link-out'));
  symlinkSync(nodePath.join(ws.outside, 'secret.txt'), nodePath.join(ws.root, 'secret-link.txt'));
  symlinkSync(nodePath.join(ws.root, 'src'), nodePath.join(ws.root, 'link-in'));
});

afterEach(() => ws.cleanup());

function hostilePaths(): string[] {
  return [
    '../outside/secret.txt',
    '../../etc/passwd',
    'src/../../outside/secret.txt',
    'src/./../../outside/secret.txt',
    '..',
    '/etc/passwd',
    nodePath.join(ws.outside, 'secret.txt'),
    `${ws.root}-evil/file.txt`,
    '..\\outside\\secret.txt',
    '\\\\server\\share\\file.txt',
    '//server/share/file.txt',
    '\\\\?\\C:\\Windows\\win.ini',
    'src/a.txt\0.png',
    'C:\\Windows\\win.ini',
    'C:/Windows/win.ini',
    'd:relative.txt',
    'file:///etc/passwd',
    'link-out/secret.txt',
    'secret-link.txt',
    '',
  ];
}

describe('path safety', () => {
  it('refuses at least 15 hostile paths for read_file and names the path', async () => {
    const { access } = recordingAccess(ws.root);
    const paths = hostilePaths();
    expect(paths.length).toBeGreaterThanOrEqual(15);
    for (const path of paths) {
      const result = await readFileTool.execute({ path }, toolContext(access));
      expect(result.isError, `should refuse ${JSON.stringify(path)}`).toBe(true);
      expect(result.text, path).toContain('Refused path');
      expect(result.text).not.toContain('TOP SECRET');
      const shown = path.length > 200 ? path.slice(0, 200) : path;
      expect(result.text).toContain(JSON.stringify(shown).slice(1, 12));
    }
  });

  it('refuses writes through hostile paths and leaves the outside untouched', async () => {
    const { access, requests } = recordingAccess(ws.root);
    for (const path of ['../outside/secret.txt', 'link-out/new.txt', 'secret-link.txt', '/tmp/x-agent-test.txt']) {
      const result = await writeFileTool.execute({ path, content: 'pwned' }, toolContext(access));
      expect(result.isError, path).toBe(true);
    }
    expect(requests).toHaveLength(0);
    const secret = await import('node:fs').then((fs) => fs.readFileSync(nodePath.join(ws.outside, 'secret.txt'), 'utf8'));
    expect(secret).toBe('TOP SECRET\n');
  });

  it('refuses listing a symlinked folder that points outside', async () => {
    const { access } = recordingAccess(ws.root);
    const result = await listDirTool.execute({ path: 'link-out' }, toolContext(access));
    expect(result.isError).toBe(true);
    expect(result.text).toContain('symbolic link');
  });

  it('accepts safe paths: relative, absolute inside, ./, a folder named like "..x", a symlink within the workspace', async () => {
    const { access } = recordingAccess(ws.root);
    ws.write('..notes/n.txt', 'dots\n');
    for (const path of ['src/a.txt', './src/a.txt', nodePath.join(ws.root, 'src/a.txt'), 'src/../src/a.txt', 'link-in/a.txt', 'src\\a.txt']) {
      const result = await readFileTool.execute({ path }, toolContext(access));
      expect(result.isError, `${path}: ${result.text}`).toBe(false);
      expect(result.text).toContain('inside');
    }
    const dots = await readFileTool.execute({ path: '..notes/n.txt' }, toolContext(access));
    expect(dots.text).toContain('dots');
  });

  it('treats drive paths as paths on Windows and refuses them elsewhere', () => {
    expect(() => resolveLexically('C:\\ws\\a.txt', ['C:\\ws'], 'win32')).not.toThrow();
    expect(() => resolveLexically('D:\\other\\a.txt', ['C:\\ws'], 'win32')).toThrow(/outside the workspace/);
    expect(() => resolveLexically('c:\\WS\\a.txt', ['C:\\ws'], 'win32')).not.toThrow();
    expect(() => resolveLexically('C:\\ws\\a.txt', ['/ws'], 'linux')).toThrow(/Windows drive/);
  });
});
