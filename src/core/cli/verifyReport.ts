// Integrity check of a session file: damaged lines, dangling parents, missing blobs, unpaired tool calls on the current path.
import type { SessionEntry } from '../session/entries';
import type { ParsedLog } from '../session/logParser';
import { SessionTree } from '../session/sessionTree';
import type { BlobStore } from '../storage/blobStore';

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
}

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
  const report: VerifyReport = {
    ok: false,
    validEntries: parsed.entries.length,
    tornTail: parsed.torn ? { line: parsed.torn.line, bytes: parsed.torn.raw.length } : null,
    corruptLines: parsed.corrupt.map((bad) => ({ line: bad.line, reason: bad.reason })),
    danglingParents: tree.danglingEntries().map((entry) => ({ id: entry.id, parentId: entry.parentId })),
    missingBlobs,
    ...toolPairProblems(tree.pathTo(tree.leafId)),
  };
  report.ok = !report.tornTail && [report.corruptLines, report.danglingParents, report.missingBlobs, report.orphanedResults].every((list) => list.length === 0);
  return report;
}

export function formatVerifyReport(report: VerifyReport): string {
  const lines = [`${report.ok ? 'OK' : 'PROBLEMS FOUND'}: ${report.validEntries} valid entries`];
  if (report.tornTail) lines.push(`torn last line ${report.tornTail.line} (${report.tornTail.bytes} bytes, an interrupted write)`);
  for (const bad of report.corruptLines) lines.push(`corrupt line ${bad.line}: ${bad.reason}`);
  for (const entry of report.danglingParents) lines.push(`entry ${entry.id} names a missing parent ${entry.parentId ?? ''}`);
  for (const blob of report.missingBlobs) lines.push(`entry ${blob.entryId}: blob ${blob.sha256} is missing`);
  for (const call of report.unansweredCalls) lines.push(`call ${call.toolCallId} in ${call.entryId} has no result on the current path (sent as cancelled)`);
  for (const result of report.orphanedResults) lines.push(`result ${result.entryId} answers no call on the current path (${result.toolCallId})`);
  return lines.join('\n');
}
