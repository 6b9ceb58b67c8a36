// Regressions found by the fault suite: writes through dangling symlinks, and quarantine records after a short write.
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileTool } from '../../src/core/tools/editTools';
import { readFileTool } from '../../src/core/tools/fileTools';
import { resolveSafely } from '../../src/core/tools/pathSafety';
import { quarantineLines, quarantinePath } from '../../src/core/session/quarantine';
import { nodeFileIo } from '../../src/core/storage/fileIo';
import { recordingAccess, tempWorkspace, toolContext, type TempWorkspace } from '../support/agentWorkspace';
import { tempDir } from '../support/sessionTempDir';

describe('path safety through dangling symbolic links', () => {
  let ws: TempWorkspace;
  beforeEach(() => {
    ws = tempWorkspace();
    ws.write('../outside/.keep', '');
    symlinkSync(nodePath.join(ws.outside, 'planted.txt'), nodePath.join(ws.root, 'dangling.txt'));
    symlinkSync(nodePath.join(ws.outside, 'new-dir'), nodePath.join(ws.root, 'dangling-dir'));
    symlinkSync(nodePath.join(ws.root, 'loop-b'), nodePath.join(ws.root, 'loop-a'));
    symlinkSync(nodePath.join(ws.root, 'loop-a'), nodePath.join(ws.root, 'loop-b'));
    symlinkSync(nodePath.join(ws.root, 'fresh.txt'), nodePath.join(ws.root, 'dangling-in.txt'));
  });
  afterEach(() => ws.cleanup());

  it('refuses to write through a link whose missing target is outside the workspace, and writes nothing', async () => {
    const access = recordingAccess(ws.root, { allow: true });
    for (const path of ['dangling.txt', 'dangling-dir/file.txt']) {
      const output = await writeFileTool.execute({ path, content: 'pwned' }, toolContext(access.access));
      expect(output.isError, path).toBe(true);
      expect(output.text).toContain(path);
    }
    expect(existsSync(nodePath.join(ws.outside, 'planted.txt'))).toBe(false);
    expect(existsSync(nodePath.join(ws.outside, 'new-dir'))).toBe(false);
  });

  it('refuses to read through such a link instead of reporting a missing file', async () => {
    const output = await readFileTool.execute({ path: 'dangling.txt' }, toolContext(recordingAccess(ws.root).access));
    expect(output.isError).toBe(true);
    expect(output.text).toMatch(/outside the workspace/);
  });

  it('refuses a symbolic link loop with a clear reason', async () => {
    await expect(resolveSafely('loop-a', [ws.root])).rejects.toThrow(/loop of symbolic links/);
  });

  it('still allows a dangling link that points inside the workspace', async () => {
    const resolved = await resolveSafely('dangling-in.txt', [ws.root]);
    expect(resolved.relative).toBe('dangling-in.txt');
  });
});

describe('quarantine after a record was cut short', () => {
  it('cuts the torn fragment (a partial copy of a line still in the log) so every record stays readable', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const log = nodePath.join(dir, 's.jsonl');
      const earlier = '{"quarantinedAt":"2026-01-01T00:00:00.000Z","line":3,"text":"older"}\n';
      writeFileSync(quarantinePath(log), `${earlier}{"quarantinedAt":"2026-01-01T00:00:00.000Z","text":"cut sh`);
      await quarantineLines(nodeFileIo, log, [{ raw: Buffer.from('garbage line'), line: 7, offset: 120, reason: 'not JSON' }], new Date(0));
      const lines = readFileSync(quarantinePath(log), 'utf8').split('\n').filter(Boolean);
      expect(lines).toHaveLength(2);
      expect(JSON.parse(lines[0] ?? '')).toMatchObject({ line: 3, text: 'older' });
      expect(JSON.parse(lines[1] ?? '')).toMatchObject({ line: 7, text: 'garbage line' });
    } finally {
      cleanup();
    }
  });
});
