// `inspect <session.jsonl> [--json]`: counts, leaf, compactions and damage of a session, without modifying it.
import { SessionLog } from '../session/sessionLog';
import { countQuarantined } from '../session/quarantine';
import { requireFile } from './cliArgs';
import type { CliCommand } from './cliDeps';
import { buildInspectReport, formatInspectReport } from './inspectReport';

export const inspectCommand: CliCommand = async (args, deps) => {
  const file = requireFile(args, 'inspect');
  const { log, warnings, damage } = await SessionLog.open(file, { io: deps.io, readOnly: true });
  const quarantined = (await countQuarantined(deps.io, file)) + damage.corruptLines + (damage.tornBytes > 0 ? 1 : 0);
  const report = buildInspectReport({ header: log.header, tree: log.tree, warnings, quarantined });
  deps.out(args.switches.has('json') ? JSON.stringify(report, null, 2) : formatInspectReport(report));
  return 0;
};
