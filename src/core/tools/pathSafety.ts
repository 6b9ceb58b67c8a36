// Confines model-supplied paths to the workspace folders: lexical checks first, then symlinks via realpath.
import { promises as fs } from 'node:fs';
import * as nodePath from 'node:path';
import { WorkspaceRefusal } from './workspaceAccess';

export interface ResolvedPath {
  absolute: string;
  /** Relative to its root, forward slashes; '.' for the root itself. */
  relative: string;
  root: string;
}

type PathApi = typeof nodePath.posix;

function pathApi(platform: NodeJS.Platform): PathApi {
  return platform === 'win32' ? nodePath.win32 : nodePath.posix;
}

function refuse(raw: string, why: string): never {
  const shown = JSON.stringify(raw.length > 200 ? `${raw.slice(0, 200)}...` : raw);
  throw new WorkspaceRefusal(`Refused path ${shown}: ${why}. Use a path inside the workspace folder.`);
}

/** True when `child` is `parent` or below it (both absolute, normalized). */
export function isInside(parent: string, child: string, platform: NodeJS.Platform = process.platform): boolean {
  const api = pathApi(platform);
  const fold = (text: string): string => (platform === 'win32' || platform === 'darwin' ? text.toLowerCase() : text);
  const relative = api.relative(fold(parent), fold(child));
  const climbs = relative === '..' || relative.startsWith(`..${api.sep}`);
  return relative === '' || (!climbs && !api.isAbsolute(relative));
}

/** Longest path accepted (Linux's PATH_MAX, in bytes): longer ones cannot be opened and only cost time to walk. */
export const MAX_PATH_BYTES = 4096;
/** Longest single name in a path (every common file system's limit). */
const MAX_NAME_BYTES = 255;

function rejectHostileSyntax(raw: string, platform: NodeJS.Platform): string {
  // Checked first, on the length alone (4 bytes per character at most), so a 100,000-character path is refused at once.
  if (raw.length > MAX_PATH_BYTES || Buffer.byteLength(raw, 'utf8') > MAX_PATH_BYTES) refuse(raw, `it is ${raw.length} characters long, more than the ${MAX_PATH_BYTES} bytes a path can have`);
  if (raw.split(/[\\/]/).some((name) => Buffer.byteLength(name, 'utf8') > MAX_NAME_BYTES)) refuse(raw, `one of its names is longer than ${MAX_NAME_BYTES} bytes, the most a file system allows`);
  if (raw.trim() === '') refuse(raw, 'the path is empty');
  if (raw.includes('\0')) refuse(raw, 'it contains a NUL byte');
  if (/^[a-zA-Z][a-zA-Z0-9+.-]+:\/\//.test(raw)) refuse(raw, 'URIs are not accepted, only file paths');
  // Model output mixes separators; normalizing them means `..\..\x` is checked like `../../x`.
  const text = raw.replace(/\\/g, '/');
  if (text.startsWith('//')) refuse(raw, 'network (UNC) paths are not allowed');
  if (/^[a-zA-Z]:/.test(text) && platform !== 'win32') refuse(raw, 'Windows drive paths do not exist on this system');
  return text;
}

/** Resolves a raw path against the roots without touching the disk; throws WorkspaceRefusal when it escapes. */
export function resolveLexically(raw: string, roots: readonly string[], platform: NodeJS.Platform = process.platform): ResolvedPath {
  const api = pathApi(platform);
  const text = rejectHostileSyntax(raw, platform);
  const first = roots[0];
  if (first === undefined) refuse(raw, 'no workspace folder is open');
  const absolute = api.isAbsolute(text) ? api.normalize(text) : api.resolve(first, text);
  const root = roots.find((candidate) => isInside(candidate, absolute, platform));
  if (root === undefined) {
    const why = api.isAbsolute(text) ? 'it is outside the workspace folders' : 'it climbs out of the workspace folder';
    refuse(raw, why);
  }
  const relative = api.relative(root, absolute).split(api.sep).join('/') || '.';
  return { absolute, relative, root };
}

/** A resolved path plus where it really lands once symbolic links are followed (the nearest existing ancestor's realpath plus the rest). */
export interface SafePath extends ResolvedPath {
  real: string;
}

/** Where a dangling symbolic link points (absolute), or undefined when the path is not a symbolic link. */
async function danglingLinkTarget(path: string, api: PathApi): Promise<string | undefined> {
  try {
    if (!(await fs.lstat(path)).isSymbolicLink()) return undefined;
    return api.resolve(api.dirname(path), await fs.readlink(path));
  } catch {
    return undefined;
  }
}

/** Symbolic links followed while resolving one path before it is refused as a loop (as the kernel's ELOOP). */
const MAX_LINK_HOPS = 40;

class SymlinkLoopError extends Error {}

async function realpathOfNearest(absolute: string, api: PathApi, hops = 0): Promise<string> {
  // Files about to be created do not exist yet: resolve the nearest existing ancestor instead. A dangling
  // link is not "about to be created": writing through it lands wherever it points, so follow its target.
  const rest: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      const real = await fs.realpath(current);
      return rest.length === 0 ? real : api.join(real, ...[...rest].reverse());
    } catch {
      const target = await danglingLinkTarget(current, api);
      if (target !== undefined) {
        if (hops >= MAX_LINK_HOPS) throw new SymlinkLoopError();
        return realpathOfNearest(rest.length === 0 ? target : api.join(target, ...[...rest].reverse()), api, hops + 1);
      }
      const parent = api.dirname(current);
      if (parent === current) return absolute;
      rest.push(api.basename(current));
      current = parent;
    }
  }
}

/** Lexical checks plus symlink resolution: a link inside the workspace that points outside is refused. */
export async function resolveSafely(raw: string, roots: readonly string[], platform: NodeJS.Platform = process.platform): Promise<SafePath> {
  const resolved = resolveLexically(raw, roots, platform);
  const api = pathApi(platform);
  let real: string;
  try {
    real = await realpathOfNearest(resolved.absolute, api);
  } catch (error) {
    if (error instanceof SymlinkLoopError) refuse(raw, 'it goes through a loop of symbolic links');
    throw error;
  }
  const realRoots = await Promise.all(roots.map((root) => realpathOfNearest(root, api)));
  if (!realRoots.some((root) => isInside(root, real, platform))) {
    refuse(raw, 'it resolves (through a symbolic link) to a location outside the workspace folders');
  }
  return { ...resolved, real };
}
