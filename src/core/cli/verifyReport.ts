// Integrity check of a session file: damaged lines, dangling parents, missing blobs, unpaired tool calls on the current path.
import type { SessionEntry } from '../session/entries';
import type { ParsedLog } from '../session/logParser';
import { SessionTree } from '../session/sessionTree';
import { clipText, WARNINGS_SHOWN } from '../session/warningSummary';
import type { BlobStore } from '../storage/blobStore';

/** Every list holds its first few items (WARNINGS_SHOWN); `counts` says how many there are in all. */
export interface VerifyReport {
  ok: boolean;
  validEntries: number;
  tornTail: { line: number; bytes: number } | null;
  corruptLines: Array<{ line: number; reason: string }>;
  danglingParents: Array<{ id: string; parentId: string | null }>;
  missingBlobs: Array<{ entryId: string; sha256: string }>;
  /** On the current path: calls no result answers, results that answer no call. */
  unansweredCalls: Array<{ entryId: string; toolCallId: string }>;
  orphanedResults: Array<{ entryId: string; toolCallId: string }>;
  counts: { corruptLines: number; danglingParents: number; missingBlobs: number; unansweredCalls: number; orphanedResults: number };
}

type ListName = keyof VerifyReport['counts'];

function toolPairProblems(path: readonly SessionEntry[]): Pick<VerifyReport, 'unansweredCalls' | 'orphanedResults'> {
  const calls = new Map<string, string>();
  const answered = new Set<string>();
  const orphanedResults: VerifyReport['orphanedResults'] = [];
  for (const entry of path) {
    if (entry.type === 'assistant') for (const call of entry.toolCalls) calls.set(call.id, entry.id);
    if (entry.type === 'toolResult') {
      if (calls.has(entry.toolCallId)) answered.add(entry.toolCallId);
      else orphanedResults.push({ entryId: entry.id, toolCallId: entry.toolCallId });
    }
  }
  const unansweredCalls = [...calls].filter(([id]) => !answered.has(id)).map(([toolCallId, entryId]) => ({ entryId, toolCallId }));
  return { unansweredCalls, orphanedResults };
}

export async function buildVerifyReport(parsed: ParsedLog, blobs: BlobStore): Promise<VerifyReport> {
  const tree = new SessionTree(parsed.entries);
  const missingBlobs: VerifyReport['missingBlobs'] = [];
  for (const entry of parsed.entries) {
    if (entry.type === 'toolResult' && entry.blob && !(await blobs.has(entry.blob))) missingBlobs.push({ entryId: entry.id, sha256: entry.blob.sha256 });
  }
  const full = {
    ok: false,
    validEntries: parsed.entries.length,
    tornTail: parsed.torn ? { line: parsed.torn.line, bytes: parsed.torn.raw.length } : null,
    corruptLines: parsed.corrupt.map((bad) => ({ line: bad.line, reason: bad.reason })),
    danglingParents: tree.danglingEntries().map((entry) => ({ id: entry.id, parentId: entry.parentId })),
    missingBlobs,
    ...toolPairProblems(tree.pathTo(tree.leafId)),
  };
  const counts = { corruptLines: full.corruptLines.length, danglingParents: full.danglingParents.length, missingBlobs: missingBlobs.length, unansweredCalls: full.unansweredCalls.length, orphanedResults: full.orphanedResults.length };
  // Only the first few of each list are kept, with their text clipped: the report's size does not grow with the damage.
  const report: VerifyReport = {
    ...full,
    corruptLines: full.corruptLines.slice(0, WARNINGS_SHOWN).map((bad) => ({ line: bad.line, reason: clipText(bad.reason) })),
    danglingParents: full.danglingParents.slice(0, WARNINGS_SHOWN).map((item) => ({ id: clipText(item.id, 80), parentId: item.parentId === null ? null : clipText(item.parentId, 80) })),
    missingBlobs: missingBlobs.slice(0, WARNINGS_SHOWN).map((item) => ({ ...item, entryId: clipText(item.entryId, 80) })),
    unansweredCalls: full.unansweredCalls.slice(0, WARNINGS_SHOWN).map(clipCall),
    orphanedResults: full.orphanedResults.slice(0, WARNINGS_SHOWN).map(clipCall),
    counts,
  };
  report.ok = !report.tornTail && counts.corruptLines + counts.danglingParents + counts.missingBlobs + counts.orphanedResults === 0;
  return report;
}

function clipCall(call: { entryId: string; toolCallId: string }): { entryId: string; toolCallId: string } {
  return { entryId: clipText(call.entryId, 80), toolCallId: clipText(call.toolCallId, 80) };
}

/** "… and N more" after a list that was cut, or nothing. */
function moreLine(report: VerifyReport, name: ListName, label: string): string[] {
  const rest = report.counts[name] - report[name].length;
  return rest > 0 ? [`… and ${rest} more ${label} (${report.counts[name]} in all)`] : [];
}

export function formatVerifyReport(report: VerifyReport): string {
  const lines = [`${report.ok ? 'OK' : 'PROBLEMS FOUND'}: ${report.validEntries} valid entries`];
  if (report.tornTail) lines.push(`torn last line ${report.tornTail.line} (${report.tornTail.bytes} bytes, an interrupted write)`);
  for (const bad of report.corruptLines) lines.push(`corrupt line ${bad.line}: ${bad.reason}`);
  lines.push(...moreLine(report, 'corruptLines', 'corrupt lines'));
  for (const entry of report.danglingParents) lines.push(`entry ${entry.id} names a missing parent ${entry.parentId ?? ''}`);
  lines.push(...moreLine(report, 'danglingParents', 'entries with a missing parent'));
  for (const blob of report.missingBlobs) lines.push(`entry ${blob.entryId}: blob ${blob.sha256} is missing`);
  lines.push(...moreLine(report, 'missingBlobs', 'missing blobs'));
  for (const call of report.unansweredCalls) lines.push(`call ${call.toolCallId} in ${call.entryId} has no result on the current path (sent as cancelled)`);
  lines.push(...moreLine(report, 'unansweredCalls', 'calls without a result'));
  for (const result of report.orphanedResults) lines.push(`result ${result.entryId} answers no call on the current path (${result.toolCallId})`);
  lines.push(...moreLine(report, 'orphanedResults', 'results without a call'));
  return lines.join('\n');
}
