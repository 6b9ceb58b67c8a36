// Fault family 8: the file tools against hostile paths in a temp workspace: every one refused, nothing outside touched.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import { editFileTool, writeFileTool } from '../../src/core/tools/editTools';
import { listDirTool, readFileTool, searchTextTool } from '../../src/core/tools/fileTools';
import { nodeWorkspaceAccess } from '../support/nodeWorkspaceAccess';
import { DEFAULT_TOOL_LIMITS, type Tool, type ToolContext } from '../../src/core/tools/toolTypes';
import { treeSnapshot } from './treeSnapshot';
import { runFamily, type FamilyResult } from './familyReport';

const SECRET = 'TOP-SECRET-OUTSIDE-THE-WORKSPACE';

interface Layout {
  workspace: string;
  outside: string;
  /** A sibling whose name starts with the workspace's name: catches prefix-only containment checks. */
  sibling: string;
}

function makeLayout(base: string): Layout {
  const workspace = nodePath.join(base, 'ws');
  const outside = nodePath.join(base, 'outside');
  const sibling = nodePath.join(base, 'ws-evil');
  for (const dir of [workspace, outside, sibling, nodePath.join(workspace, 'src')]) mkdirSync(dir, { recursive: true });
  writeFileSync(nodePath.join(workspace, 'src', 'a.ts'), 'export const a = 1;\n');
  writeFileSync(nodePath.join(outside, 'secret.txt'), `${SECRET}\n`);
  writeFileSync(nodePath.join(sibling, 'secret.txt'), `${SECRET}\n`);
  symlinkSync(outside, nodePath.join(workspace, 'link-out'));
  symlinkSync(nodePath.join(outside, 'secret.txt'), nodePath.join(workspace, 'secret-link.txt'));
  symlinkSync(nodePath.join(workspace, 'secret-link.txt'), nodePath.join(workspace, 'chain-link.txt'));
  // Points outside at a file that does not exist yet: a write through it would create the file outside.
  symlinkSync(nodePath.join(outside, 'created-through-link.txt'), nodePath.join(workspace, 'dangling-out.txt'));
  symlinkSync(outside, nodePath.join(workspace, 'src', 'deep-link'));
  return { workspace, outside, sibling };
}

function hostilePaths(layout: Layout): string[] {
  return [
    '../outside/secret.txt',
    '../../../../../../../../etc/passwd',
    '/etc/passwd',
    '/proc/self/environ',
    nodePath.join(layout.outside, 'secret.txt'),
    nodePath.join(layout.sibling, 'secret.txt'),
    '../ws-evil/secret.txt',
    'src/../../outside/secret.txt',
    './../outside/secret.txt',
    'src/./../../../outside/secret.txt',
    '..\\outside\\secret.txt',
    'src\\..\\..\\outside\\secret.txt',
    'link-out/secret.txt',
    'secret-link.txt',
    'chain-link.txt',
    'dangling-out.txt',
    'src/deep-link/secret.txt',
    '\\\\server\\share\\secret.txt',
    '//server/share/secret.txt',
    'C:\\Windows\\win.ini',
    'C:/Windows/win.ini',
    'c:secret.txt',
    'src/a.ts\0../../outside/secret.txt',
    'secret.txt\0',
    'file:///etc/passwd',
    `${'../'.repeat(60)}etc/passwd`,
  ];
}

function context(workspace: string): ToolContext {
  const access = nodeWorkspaceAccess([workspace], { trusted: true, confirm: () => Promise.resolve(true) });
  return {
    signal: new AbortController().signal,
    workspace: access,
    limits: DEFAULT_TOOL_LIMITS,
    toolCallId: 'call-path',
  };
}

const CALLS: Array<{ tool: Tool; args: (path: string) => Record<string, unknown> }> = [
  { tool: readFileTool, args: (path) => ({ path }) },
  { tool: writeFileTool, args: (path) => ({ path, content: 'pwned\n' }) },
  { tool: editFileTool, args: (path) => ({ path, oldText: SECRET, newText: 'pwned' }) },
];

async function run(): Promise<FamilyResult> {
  const base = mkdtempSync(nodePath.join(tmpdir(), 'faults-paths-'));
  const failures: string[] = [];
  try {
    const layout = makeLayout(base);
    const before = [treeSnapshot(layout.outside), treeSnapshot(layout.sibling)].join('\n--\n');
    const paths = hostilePaths(layout);
    let calls = 0;
    for (const path of paths) {
      for (const { tool, args } of CALLS) {
        calls++;
        const output = await tool.execute(args(path), context(layout.workspace));
        const name = tool.definition.function.name;
        if (!output.isError || !/refused/i.test(output.text))
          failures.push(`${name} ${JSON.stringify(path)} not refused: ${output.text.slice(0, 120)}`);
        if (output.text.includes(SECRET)) failures.push(`${name} ${JSON.stringify(path)} leaked the outside file`);
      }
    }
    for (const path of ['..', 'link-out', 'src/deep-link', layout.outside, '\\\\server\\share']) {
      calls++;
      const output = await listDirTool.execute({ path }, context(layout.workspace));
      if (!output.isError || !/refused/i.test(output.text))
        failures.push(`list_dir ${JSON.stringify(path)} not refused: ${output.text.slice(0, 120)}`);
    }
    calls++;
    const search = await searchTextTool.execute({ pattern: SECRET }, context(layout.workspace));
    if (search.text.includes('secret.txt')) failures.push('search_text followed a symlink out of the workspace');
    const after = [treeSnapshot(layout.outside), treeSnapshot(layout.sibling)].join('\n--\n');
    if (after !== before) failures.push('files outside the workspace changed');
    const count = paths.length;
    return {
      line: `path safety: ${count} hostile paths × ${CALLS.length} tools + ${calls - count * CALLS.length} more calls, ${failures.length} not refused`,
      failures,
    };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

runFamily('path safety', run);
