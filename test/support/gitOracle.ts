// git as the tests' oracle for .gitignore: whether it is installed, and what it would add in a folder (no global or info/exclude).
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import * as nodePath from 'node:path';

export function gitAvailable(): boolean {
  try {
    execFileSync('git', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The untracked files git lists below `root` under its .gitignore files, sorted (a repository is made and removed). */
export function gitListing(root: string): string[] {
  const env = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
  execFileSync('git', ['init', '-q'], { cwd: root, env });
  const out = execFileSync('git', ['-c', 'core.quotepath=false', 'ls-files', '-z', '--others', '--exclude-per-directory=.gitignore'], { cwd: root, env, encoding: 'utf8' });
  rmSync(nodePath.join(root, '.git'), { recursive: true, force: true });
  return out.split('\0').filter((name) => name !== '').sort();
}
