// FIFOs, hard links and symlink swaps during confirmation: refused or harmless, never a hang or a write outside.
import { execFileSync } from 'node:child_process';
import { linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { editFileTool, writeFileTool } from '../../src/core/tools/editTools';
import { readFileTool, searchTextTool } from '../../src/core/tools/fileTools';
import { nodeWorkspaceAccess } from '../support/nodeWorkspaceAccess';
import { writeFileAtomically } from '../../src/core/tools/safeFileIo';
import type { ConfirmRequest } from '../../src/core/tools/workspaceAccess';
import { recordingAccess, tempWorkspace, toolContext, type TempWorkspace } from '../support/agentWorkspace';

let ws: TempWorkspace;
let secret: string;

beforeEach(() => {
  ws = tempWorkspace();
  secret = nodePath.join(ws.outside, 'secret.txt');
  writeFileSync(secret, 'TOP SECRET\n');
  ws.write('src/a.txt', 'inside\n');
});

afterEach(() => ws.cleanup());

/** An access whose confirmation runs `during` first: the attacker's move between the check and the write. */
function swappingAccess(during: (request: ConfirmRequest) => void) {
  return nodeWorkspaceAccess([ws.root], {
    trusted: true,
    confirm: (request) => {
      during(request);
      return Promise.resolve(true);
    },
  });
}

describe.skipIf(process.platform === 'win32')('special files', () => {
  it('read-file-refuses-a-fifo-without-hanging', async () => {
    execFileSync('mkfifo', [nodePath.join(ws.root, 'pipe')]);
    const { access } = recordingAccess(ws.root);
    const started = Date.now();
    for (const call of [
      () => readFileTool.execute({ path: 'pipe' }, toolContext(access)),
      () => editFileTool.execute({ path: 'pipe', oldText: 'a', newText: 'b' }, toolContext(access)),
      () => writeFileTool.execute({ path: 'pipe', content: 'x' }, toolContext(access)),
    ]) {
      const result = await call();
      expect(result.isError).toBe(true);
      expect(result.text).toContain('not a regular file');
    }
    expect((await searchTextTool.execute({ pattern: 'x' }, toolContext(access))).isError).toBe(false);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(lstatSync(nodePath.join(ws.root, 'pipe')).isFIFO()).toBe(true);
  });

  it('read-file-refuses-a-hard-link-to-an-outside-file', async () => {
    linkSync(secret, nodePath.join(ws.root, 'hard.txt'));
    const { access, requests } = recordingAccess(ws.root);
    const read = await readFileTool.execute({ path: 'hard.txt' }, toolContext(access));
    expect(read.isError).toBe(true);
    expect(read.text).toContain('2 hard links');
    expect(read.text).not.toContain('TOP SECRET');
    const edit = await editFileTool.execute({ path: 'hard.txt', oldText: 'TOP', newText: 'PWNED' }, toolContext(access));
    expect(edit.text).toContain('hard links');
    const write = await writeFileTool.execute({ path: 'hard.txt', content: 'PWNED' }, toolContext(access));
    expect(write.text).toContain('hard links');
    const search = await searchTextTool.execute({ pattern: 'TOP SECRET' }, toolContext(access));
    expect(search.text).not.toContain('TOP SECRET\n');
    expect(search.text).toContain('1 file skipped');
    expect(requests).toHaveLength(0);
    expect(readFileSync(secret, 'utf8')).toBe('TOP SECRET\n');
  });

  it('write-file-swapped-for-a-symlink-during-confirmation-stays-inside', async () => {
    const target = nodePath.join(ws.root, 'src/a.txt');
    const access = swappingAccess(() => {
      rmSync(target);
      symlinkSync(secret, target);
    });
    const result = await writeFileTool.execute({ path: 'src/a.txt', content: 'PWNED\n' }, toolContext(access));
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/symbolic link|resolves elsewhere/);
    expect(readFileSync(secret, 'utf8')).toBe('TOP SECRET\n');
  });

  it('edit-file-swapped-for-a-symlink-during-confirmation-stays-inside', async () => {
    writeFileSync(secret, 'inside\n');
    const target = nodePath.join(ws.root, 'src/a.txt');
    const access = swappingAccess(() => {
      rmSync(target);
      symlinkSync(secret, target);
    });
    const result = await editFileTool.execute({ path: 'src/a.txt', oldText: 'inside', newText: 'PWNED' }, toolContext(access));
    expect(result.isError).toBe(true);
    expect(readFileSync(secret, 'utf8')).toBe('inside\n');
  });

  it('write-file-whose-folder-is-swapped-for-a-symlink-during-confirmation-stays-inside', async () => {
    const access = swappingAccess(() => {
      renameSync(nodePath.join(ws.root, 'src'), nodePath.join(ws.root, 'src-moved'));
      symlinkSync(ws.outside, nodePath.join(ws.root, 'src'));
    });
    const result = await writeFileTool.execute({ path: 'src/new.txt', content: 'PWNED\n' }, toolContext(access));
    expect(result.isError).toBe(true);
    expect(() => statSync(nodePath.join(ws.outside, 'new.txt'))).toThrow();
  });

  it('write-file-atomic-rechecks-the-target-right-before-the-rename', async () => {
    const target = nodePath.join(ws.root, 'src/a.txt');
    rmSync(target);
    symlinkSync(secret, target);
    await expect(writeFileAtomically(target, 'PWNED\n', [ws.root], 'src/a.txt')).rejects.toThrow(/replaced by a symbolic link/);
    rmSync(target);
    linkSync(secret, target);
    await expect(writeFileAtomically(target, 'PWNED\n', [ws.root], 'src/a.txt')).rejects.toThrow(/2 hard links/);
    rmSync(target);
    renameSync(nodePath.join(ws.root, 'src'), nodePath.join(ws.root, 'src-moved'));
    symlinkSync(ws.outside, nodePath.join(ws.root, 'src'));
    await expect(writeFileAtomically(target, 'PWNED\n', [ws.root], 'src/a.txt')).rejects.toThrow(/folder was replaced/);
    expect(readFileSync(secret, 'utf8')).toBe('TOP SECRET\n');
    expect(readdirSync(ws.outside)).toEqual(['secret.txt']);
    expect(readdirSync(nodePath.join(ws.root, 'src-moved'))).toEqual([]);
  });

  it('write-file-through-an-inside-symlink-still-works-and-keeps-the-mode', async () => {
    const real = ws.write('bin/tool.sh', '#!/bin/sh\necho old\n');
    execFileSync('chmod', ['755', real]);
    symlinkSync(real, nodePath.join(ws.root, 'tool.sh'));
    mkdirSync(nodePath.join(ws.root, 'empty'));
    const { access } = recordingAccess(ws.root);
    const result = await editFileTool.execute({ path: 'tool.sh', oldText: 'old', newText: 'new' }, toolContext(access));
    expect(result.isError).toBe(false);
    expect(readFileSync(real, 'utf8')).toBe('#!/bin/sh\necho new\n');
    expect(statSync(real).mode & 0o777).toBe(0o755);
    expect(lstatSync(nodePath.join(ws.root, 'tool.sh')).isSymbolicLink()).toBe(true);
  });
});
