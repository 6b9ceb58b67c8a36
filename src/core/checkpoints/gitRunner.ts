// Runs git for the shadow repository: an interface (tests and the extension use a real git), and its node implementation.
import { spawn } from 'node:child_process';
import { devNull } from 'node:os';

/** What one git invocation produced. */
export interface GitOutput {
  /** Exit code; null when git could not be started or was killed. */
  code: number | null;
  stdout: Buffer;
  stderr: string;
  /** Set when git could not be started at all (ENOENT: not installed or not on PATH). */
  startError?: string;
}

/** Runs git with the given arguments (no shell), optionally feeding stdin. */
export interface GitRunner {
  run(args: readonly string[], options?: { input?: string; signal?: AbortSignal }): Promise<GitOutput>;
}

/** Variables a surrounding git (a hook, a terminal inside a repository) may have set, which would redirect our commands. */
const INHERITED_GIT_VARIABLES = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES', 'GIT_CEILING_DIRECTORIES', 'GIT_NAMESPACE', 'GIT_COMMON_DIR'];

/** The most stdout kept from one invocation (a blob larger than the snapshot cap is never asked for). */
const MAX_STDOUT_BYTES = 256 * 1024 * 1024;

/** Spawns `gitPath` (default "git" on PATH) directly, never through a shell; stdout is kept as bytes. */
export function nodeGitRunner(gitPath = 'git'): GitRunner {
  return {
    run(args, options = {}) {
      return new Promise((resolve) => {
        // The user's system and global git configuration stay out (no clean filters, LFS or fsmonitor on snapshots).
        const env: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: devNull };
        for (const name of INHERITED_GIT_VARIABLES) delete env[name];
        const child = spawn(gitPath, [...args], { env, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true, ...(options.signal ? { signal: options.signal } : {}) });
        const chunks: Buffer[] = [];
        let size = 0;
        let stderr = '';
        let settled = false;
        const finish = (output: GitOutput): void => {
          if (settled) return;
          settled = true;
          resolve(output);
        };
        child.stdout.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_STDOUT_BYTES) chunks.push(chunk);
        });
        child.stderr.on('data', (chunk: Buffer) => {
          if (stderr.length < 16_000) stderr += chunk.toString('utf8');
        });
        child.on('error', (error: NodeJS.ErrnoException) => {
          const startError = error.code === 'ENOENT' ? 'git is not installed (or not on PATH)' : error.message;
          finish({ code: null, stdout: Buffer.concat(chunks), stderr, startError });
        });
        child.on('close', (code) => finish({ code, stdout: Buffer.concat(chunks), stderr }));
        child.stdin.on('error', () => undefined);
        child.stdin.end(options.input ?? '');
      });
    },
  };
}
