// Test helpers for the tools: a temp workspace folder, a node WorkspaceAccess over it, and a ToolContext.
import { mkdtempSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import { nodeWorkspaceAccess } from './nodeWorkspaceAccess';
import type { SessionAccess, ToolContext } from '../../src/core/tools/toolTypes';
import { DEFAULT_TOOL_LIMITS } from '../../src/core/tools/toolTypes';
import type { ConfirmRequest, WorkspaceAccess } from '../../src/core/tools/workspaceAccess';

export interface TempWorkspace {
  /** The parent temp folder (holds `ws/` and an `outside/` sibling). */
  base: string;
  root: string;
  outside: string;
  write(relative: string, text: string): string;
  cleanup(): void;
}

export function tempWorkspace(): TempWorkspace {
  const base = realpathSync(mkdtempSync(nodePath.join(tmpdir(), 'agent-tools-')));
  const root = nodePath.join(base, 'ws');
  const outside = nodePath.join(base, 'outside');
  mkdirSync(root);
  mkdirSync(outside);
  return {
    base,
    root,
    outside,
    write(relative, text) {
      const file = nodePath.join(root, relative);
      mkdirSync(nodePath.dirname(file), { recursive: true });
      writeFileSync(file, text);
      return file;
    },
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  };
}

export interface RecordingAccess {
  access: WorkspaceAccess;
  requests: ConfirmRequest[];
}

/** A node WorkspaceAccess that records every confirmation request and answers with `allow`. */
export function recordingAccess(root: string, options: { trusted?: boolean; allow?: boolean } = {}): RecordingAccess {
  const requests: ConfirmRequest[] = [];
  const access = nodeWorkspaceAccess([root], {
    trusted: options.trusted ?? true,
    confirm: (request) => {
      requests.push(request);
      return Promise.resolve(options.allow ?? true);
    },
  });
  return { access, requests };
}

export function toolContext(workspace: WorkspaceAccess, extra: { session?: SessionAccess; signal?: AbortSignal } = {}): ToolContext {
  return {
    signal: extra.signal ?? new AbortController().signal,
    workspace,
    session: extra.session,
    limits: { ...DEFAULT_TOOL_LIMITS, commandTimeoutMs: 20_000 },
    toolCallId: 'call_test',
  };
}
