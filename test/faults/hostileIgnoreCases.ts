// Hostile-workspace cases for hostile .gitignore files (within their caps: 1 MB, 5,000 rules): every slice of the walk stays bounded by counted work, and the rules still decide what they should.
import { mkdirSync, writeFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { performance } from 'node:perf_hooks';
import { takeFolderSnapshot } from '../../src/core/checkpoints/folderSnapshot';
import { FolderRules } from '../../src/core/checkpoints/ignoreFiles';
import { STEPS_PER_ENTRY } from '../../src/core/checkpoints/matchSteps';
import { shownKey } from '../../src/core/checkpoints/pathKeys';
import { StatIndex } from '../../src/core/checkpoints/statIndex';
import { StoreBudget } from '../../src/core/checkpoints/storeBudget';
import { nextTurn, SLICE_LIMITS, type SliceWork } from '../../src/core/checkpoints/walkSlices';
import type { CaseOutcome, HostileCase } from './caseRunner';
import { commonChecks, countingChildren, workspaceCase, type Workspace } from './workspaceKit';

/** The longest wall-clock stretch any of these cases saw (reported, never judged: the machine is shared). */
export const longestStretch = { ms: 0 };

interface Hostile {
  name: string;
  /** Writes the folder below `root` (its .gitignore files and entries). */
  make: (root: string) => void;
  /** Files (keys) the snapshot must take, and files it must leave out (ignored by a rule that still holds). */
  taken: string[];
  ignored: string[];
  /** The longest line of any .gitignore written (its compiling is counted at once). */
  longestLine: number;
}

const NAME = (k: number): string => `${'a'.repeat(235)}${String(k).padStart(6, '0')}`;

function literalRuns(): Hostile {
  const names = Array.from({ length: 40 }, (_, k) => NAME(k));
  return {
    name: 'the finding: 5,000 rules *aaaa…(150)…b* against 40 names of 241 characters',
    make: (root) => {
      writeFileSync(nodePath.join(root, '.gitignore'), Array.from({ length: 5000 }, (_, k) => `*${'a'.repeat(150)}b${k}*`).join('\n'));
      for (const name of names) writeFileSync(nodePath.join(root, name), name);
    },
    taken: ['.gitignore', ...names],
    ignored: [],
    longestLine: 160,
  };
}

function wildcardRuns(): Hostile {
  const names = Array.from({ length: 40 }, (_, k) => NAME(k));
  return {
    name: '4,999 rules *?a?a…?b* (runs with wildcards, tried at every position), and a real rule last (the 5,000th)',
    make: (root) => {
      const rules = Array.from({ length: 4999 }, (_, k) => `*${'?a'.repeat(70)}b${k}*`);
      writeFileSync(nodePath.join(root, '.gitignore'), [...rules, '*.log'].join('\n'));
      for (const name of names) writeFileSync(nodePath.join(root, name), name);
      writeFileSync(nodePath.join(root, 'build.log'), 'ignored\n');
    },
    taken: ['.gitignore', ...names],
    ignored: ['build.log'],
    longestLine: 160,
  };
}

function starredPaths(): Hostile {
  const deep = Array.from({ length: 30 }, (_, k) => `d${'a'.repeat(60)}${k}`).join('/');
  return {
    name: '2,000 rules **/a*/**/a*/…/b against a 30-level path, and .env still ignored',
    make: (root) => {
      const rule = (k: number): string => `${Array.from({ length: 12 }, () => '**/d*a*a').join('/')}/b${k}`;
      writeFileSync(nodePath.join(root, '.gitignore'), ['.env', ...Array.from({ length: 2000 }, (_, k) => rule(k))].join('\n'));
      mkdirSync(nodePath.join(root, deep), { recursive: true });
      writeFileSync(nodePath.join(root, deep, 'file.txt'), 'deep\n');
      writeFileSync(nodePath.join(root, '.env'), 'TOKEN=x\n');
    },
    taken: ['.gitignore', `${deep}/file.txt`],
    ignored: ['.env'],
    longestLine: 120,
  };
}

function oneMegabyteRule(): Hostile {
  return {
    name: 'one rule of a million characters',
    make: (root) => {
      writeFileSync(nodePath.join(root, '.gitignore'), `*${'a'.repeat(1024 * 1024 - 16)}b*\nsecret.txt\n`);
      writeFileSync(nodePath.join(root, NAME(1)), 'x');
      writeFileSync(nodePath.join(root, 'secret.txt'), 'x');
    },
    taken: ['.gitignore', NAME(1)],
    ignored: ['secret.txt'],
    longestLine: 1024 * 1024,
  };
}

function nestedFiles(): Hostile {
  const folders = Array.from({ length: 300 }, (_, k) => `f${k}`);
  return {
    name: '300 folders, each with a .gitignore of 50 hostile rules and a real one',
    make: (root) => {
      for (const folder of folders) {
        mkdirSync(nodePath.join(root, folder));
        writeFileSync(nodePath.join(root, folder, '.gitignore'), [...Array.from({ length: 50 }, (_, k) => `*${'a'.repeat(150)}b${k}*`), 'out/'].join('\n'));
        writeFileSync(nodePath.join(root, folder, NAME(0)), 'x');
        mkdirSync(nodePath.join(root, folder, 'out'));
        writeFileSync(nodePath.join(root, folder, 'out', 'x.js'), 'x');
      }
    },
    taken: folders.flatMap((folder) => [`${folder}/.gitignore`, `${folder}/${NAME(0)}`]),
    ignored: folders.map((folder) => `${folder}/out/x.js`),
    longestLine: 160,
  };
}

/** The most one item may add past a slice's limit: one entry's budget, or compiling the longest line at once. */
function oneItem(hostile: Hostile): number {
  return Math.max(STEPS_PER_ENTRY + 8192, 8 * (hostile.longestLine + 1));
}

function ignoreCase(hostile: Hostile): HostileCase {
  return workspaceCase(`hostile .gitignore: ${hostile.name}`, async (ws: Workspace, outcome: CaseOutcome) => {
    const root = nodePath.join(ws.base, 'hostile');
    mkdirSync(root);
    hostile.make(root);
    const slices: SliceWork[] = [];
    let last = performance.now();
    const pause = async (work: Readonly<SliceWork>): Promise<void> => {
      slices.push({ ...work });
      longestStretch.ms = Math.max(longestStretch.ms, performance.now() - last);
      await nextTurn(work);
      last = performance.now();
    };
    const context = { store: ws.store, maxBytes: 64 * 1024, caps: { maxFiles: 50_000, maxBytes: 1024 ** 3 }, budget: new StoreBudget(ws.store.dir, () => Number.POSITIVE_INFINITY), pause };
    const taken = await countingChildren(() => takeFolderSnapshot(root, new StatIndex(), new FolderRules(), context));
    const keys = new Set([...taken.value.files.keys()].map(shownKey));
    for (const key of hostile.taken) if (!keys.has(key)) outcome.failures.push(`${key} was not snapshotted`);
    for (const key of hostile.ignored) if (keys.has(key)) outcome.failures.push(`${key} was snapshotted though a rule that still holds ignores it`);
    const most = (kind: keyof SliceWork): number => Math.max(0, ...slices.map((slice) => slice[kind]));
    if (most('matchSteps') > SLICE_LIMITS.matchSteps + oneItem(hostile)) outcome.failures.push(`a slice did ${most('matchSteps')} matching steps without a pause`);
    if (most('entries') > SLICE_LIMITS.entries + 1) outcome.failures.push(`a slice took ${most('entries')} entries without a pause`);
    commonChecks(ws, outcome, taken.started);
  });
}

export function hostileIgnoreCases(): HostileCase[] {
  return [literalRuns(), wildcardRuns(), starredPaths(), oneMegabyteRule(), nestedFiles()].map(ignoreCase);
}
