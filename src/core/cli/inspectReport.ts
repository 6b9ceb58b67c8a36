// The `inspect` report as a plain object built by one function, so other features can add their own keys.
import type { SessionHeader } from '../session/entries';
import type { SessionTree } from '../session/sessionTree';

export interface InspectInput {
  header: SessionHeader;
  tree: SessionTree;
  warnings: string[];
  /** Records in the quarantine file plus damaged lines still in the log. */
  quarantined: number;
}

export interface InspectReport {
  id: string;
  title?: string;
  version: number;
  entries: number;
  messages: { user: number; assistant: number; tool: number };
  leafId: string | null;
  pathLength: number;
  branches: number;
  compactions: Array<{ id: string; firstKeptEntryId: string | null; tokensBefore: number; tokensAfter: number; onPath: boolean }>;
  prunes: number;
  pins: number;
  quarantined: number;
  warnings: string[];
  /** Later features (budget, pruning, compaction) add keys here. */
  [key: string]: unknown;
}

export function buildInspectReport(input: InspectInput): InspectReport {
  const { tree, header } = input;
  const path = tree.pathTo(tree.leafId);
  const onPath = new Set(path.map((entry) => entry.id));
  const count = (type: string): number => tree.entries.filter((entry) => entry.type === type).length;
  return {
    id: header.id,
    ...(header.title ? { title: header.title } : {}),
    version: header.version,
    entries: tree.entries.length,
    messages: { user: count('user'), assistant: count('assistant'), tool: count('toolResult') },
    leafId: tree.leafId,
    pathLength: path.length,
    branches: tree.leaves().length,
    compactions: tree.entries.flatMap((entry) =>
      entry.type === 'compaction'
        ? [{ id: entry.id, firstKeptEntryId: entry.firstKeptEntryId, tokensBefore: entry.tokensBefore, tokensAfter: entry.tokensAfter, onPath: onPath.has(entry.id) }]
        : [],
    ),
    prunes: count('prune'),
    pins: count('pin'),
    quarantined: input.quarantined,
    warnings: input.warnings,
  };
}

function formatValue(value: unknown): string {
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}

/** Readable form: the main counts first, then every other key (including ones added by other features). */
export function formatInspectReport(report: InspectReport): string {
  const lines = [
    `session ${report.id}${report.title ? ` "${report.title}"` : ''} (schema v${report.version})`,
    `entries: ${report.entries} (user ${report.messages.user}, assistant ${report.messages.assistant}, tool ${report.messages.tool})`,
    `leaf: ${report.leafId ?? '(empty)'}, path length ${report.pathLength}, ${report.branches} branch tip(s)`,
    ...report.compactions.map(
      (c) => `compaction ${c.id}: ${c.tokensBefore} → ${c.tokensAfter} tokens, keeps from ${c.firstKeptEntryId ?? '(nothing)'}${c.onPath ? '' : ' (other branch)'}`,
    ),
    `prunes: ${report.prunes}, pins: ${report.pins}, quarantined lines: ${report.quarantined}`,
    ...report.warnings.map((warning) => `warning: ${warning}`),
  ];
  const shown = new Set(['id', 'title', 'version', 'entries', 'messages', 'leafId', 'pathLength', 'branches', 'compactions', 'prunes', 'pins', 'quarantined', 'warnings']);
  for (const [key, value] of Object.entries(report)) if (!shown.has(key)) lines.push(`${key}: ${formatValue(value)}`);
  return lines.join('\n');
}
