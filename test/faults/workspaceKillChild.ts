// Child of the hostile-workspace family, killed with -9 while it works: `snapshot <folder> <blobs>` takes a first snapshot of a folder, `restore <items.json> <blobs> <root>` restores files.
import { readFileSync } from 'node:fs';
import { workspaceCommandSnapshots } from '../../src/core/checkpoints/commandSnapshots';
import { applyFileRestore, type RestoreItem } from '../../src/core/checkpoints/fileCheckpoints';
import { BlobStore } from '../../src/core/storage/blobStore';
import { nodeFileIo } from '../../src/core/storage/fileIo';
import { confinedPort } from './workspaceKit';

async function main(): Promise<void> {
  const [mode, first = '', blobs = '', root = ''] = process.argv.slice(2);
  const store = new BlobStore(blobs, nodeFileIo);
  process.stdout.write('ready\n');
  if (mode === 'snapshot') {
    const snapshots = workspaceCommandSnapshots({ roots: () => [first], isTrusted: () => true });
    await snapshots.turnStarted('killed', { store, maxBytes: 64 * 1024 * 1024 });
  } else if (mode === 'restore') {
    const items = JSON.parse(readFileSync(first, 'utf8')) as RestoreItem[];
    await applyFileRestore(items, confinedPort(root), store, [root]);
  }
  process.stdout.write('done\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
