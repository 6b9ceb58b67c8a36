// The bench's need-based retention: a paraphrase never counts, a verbatim token always does, and only needs of the summarized past are scored.
import { describe, expect, it } from 'vitest';
import { containsToken, NeedIndex, pooledNeeds, salientTokens, scoreCompactions, type TraceItem } from '../../bench/needRetention';

/** A session: the past reads a file naming a function, the compaction falls after it, a later reply edits that function. */
const trace: TraceItem[] = [
  { kind: 'user', text: 'Fix the retry in the settings loader.' },
  { kind: 'reply', text: '' },
  { kind: 'output', text: 'export function loadSettingsWithRetry(path) {\n  const maxAttempts = 3;\n}\n// src/core/settingsLoader.ts' },
  { kind: 'reply', text: 'I will change loadSettingsWithRetry in src/core/settingsLoader.ts.' },
];

describe('need-based retention', () => {
  it('does not count a paraphrase of a needed identifier as retained', () => {
    const index = new NeedIndex(trace);
    const paraphrase = 'The agent looked at the function that loads the settings with retries in the core settings loader.';
    const [sample] = scoreCompactions(index, [{ position: 3, summaryText: paraphrase, keptText: '' }]);
    expect(sample?.needs).toBe(2);
    expect(sample?.verbatim).toBe(0);
  });

  it('counts a needed token that the summary holds verbatim, even inside a longer path or line reference', () => {
    const index = new NeedIndex(trace);
    const summary = 'Read packages/app/src/core/settingsLoader.ts:12; `loadSettingsWithRetry(path)` retries three times.';
    const [sample] = scoreCompactions(index, [{ position: 3, summaryText: summary, keptText: '' }]);
    expect(sample?.needs).toBe(2);
    expect(sample?.verbatim).toBe(2);
  });

  it('is case- and boundary-exact: a longer identifier or other casing is not the needed token', () => {
    expect(containsToken('call loadSettingsWithRetryOnce()', 'loadSettingsWithRetry')).toBe(false);
    expect(containsToken('LoadSettingsWithRetry', 'loadSettingsWithRetry')).toBe(false);
    expect(containsToken('see loadSettingsWithRetry.', 'loadSettingsWithRetry')).toBe(true);
  });

  it('does not score what the kept part still holds or what a later step re-reads', () => {
    const reread: TraceItem[] = [...trace.slice(0, 3), { kind: 'output', text: 'loadSettingsWithRetry again' }, trace[3] as TraceItem];
    const index = new NeedIndex(reread);
    const [fresh] = scoreCompactions(index, [{ position: 3, summaryText: '', keptText: 'src/core/settingsLoader.ts' }]);
    expect(fresh?.needs).toBe(0);
  });

  it('bills recovery once per item read back, and counts its needs as recoverable, not verbatim', () => {
    const index = new NeedIndex(trace);
    const samples = scoreCompactions(index, [{ position: 3, summaryText: '(none)', keptText: '' }], { itemTokens: (position) => (position === 2 ? 40 : 0) });
    const pooled = pooledNeeds(samples);
    expect(pooled.verbatim).toBe(0);
    expect(pooled.recoverable).toBe(1);
    expect(pooled.recoveryTokens).toBe(40);
    expect(pooled.recoveryCalls).toBe(1);
  });

  it('extracts identifiers, paths and numbers but no plain words', () => {
    const tokens = salientTokens('Please update the parser in src/parse/jsonReader.ts: readConfig fails with ENOENT at line 1234, see MAX_RETRIES.');
    expect([...tokens].sort()).toEqual(['1234', 'ENOENT', 'MAX_RETRIES', 'readConfig', 'src/parse/jsonReader.ts'].sort());
  });
});
