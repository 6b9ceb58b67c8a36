// Where the real-session fixtures live: test/fixtures/pi-sessions inside the repository (MIT, see its README and LICENSE).
import * as fs from 'node:fs';
import * as nodePath from 'node:path';

/** The repository root: the nearest folder upward from the working directory holding this project's package.json. */
function repositoryRoot(): string {
  let dir = process.cwd();
  for (;;) {
    const manifest = nodePath.join(dir, 'package.json');
    if (fs.existsSync(manifest) && /"name":\s*"compaction-agent"/.test(fs.readFileSync(manifest, 'utf8'))) return dir;
    const parent = nodePath.dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
}

export const PI_FIXTURES_DIR = nodePath.join(repositoryRoot(), 'test', 'fixtures', 'pi-sessions');
