// Glob to RegExp for workspace-relative paths: **, *, ?, {a,b} and [...] (Node 20 has no fs.glob).

function escapeChar(char: string): string {
  return /[.+^$()|\\/]/.test(char) ? `\\${char}` : char;
}

/** Compiles a glob; a pattern without '/' matches the file name at any depth (like VS Code's search). */
export function globToRegExp(glob: string): RegExp {
  const pattern = glob.replace(/\\/g, '/').replace(/^\.\//, '');
  const anyDepth = !pattern.includes('/');
  let source = '';
  let braceDepth = 0;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern.charAt(i);
    if (char === '*') {
      if (pattern.charAt(i + 1) === '*') {
        const slashAfter = pattern.charAt(i + 2) === '/';
        source += slashAfter ? '(?:.*/)?' : '.*';
        i += slashAfter ? 2 : 1;
      } else {
        source += '[^/]*';
      }
    } else if (char === '?') {
      source += '[^/]';
    } else if (char === '{') {
      braceDepth++;
      source += '(?:';
    } else if (char === '}' && braceDepth > 0) {
      braceDepth--;
      source += ')';
    } else if (char === ',' && braceDepth > 0) {
      source += '|';
    } else if (char === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end === -1) {
        source += '\\[';
      } else {
        const body = pattern.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\');
        source += `[${body}]`;
        i = end;
      }
    } else {
      source += escapeChar(char);
    }
  }
  return new RegExp(anyDepth ? `^(?:.*/)?${source}$` : `^${source}$`);
}

/** Folders never walked by the node implementation: huge and rarely what the model is after. */
export const SKIPPED_FOLDERS = new Set(['.git', 'node_modules', '.hg', '.svn']);
