// `import --from pi <in.jsonl> --out <session.jsonl>`: converts a pi-coding-agent session.
import { importPiFile } from '../import/piImport';
import { UsageError } from './cliArgs';
import type { CliCommand } from './cliDeps';

export const importCommand: CliCommand = {
  options: { from: 'string', out: 'string', json: 'boolean' },
  run: async (args, deps) => {
    const from = args.options.get('from');
    const out = args.options.get('out');
    const input = args.positionals[0];
    if (from !== 'pi' || !out || !input || args.positionals.length > 1) throw new UsageError('usage: import --from pi <in.jsonl> --out <session.jsonl>');
    const result = await importPiFile(input, out, deps.io);
    for (const warning of result.warnings) deps.err(`warning: ${warning}`);
    const summary = { out, entries: result.entries.length, blobs: result.blobs.length, warnings: result.warnings.length };
    deps.out(args.switches.has('json') ? JSON.stringify(summary) : `imported ${summary.entries} entries (${summary.blobs} large outputs in blobs/) to ${out}`);
    return 0;
  },
};
