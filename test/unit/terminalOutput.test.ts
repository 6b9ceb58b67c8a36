// Terminal output as the model reads it: no escape sequences, no spinner frames.
import { describe, expect, it } from 'vitest';
import { cleanTerminalOutput } from '../../src/core/tools/terminalOutput';

describe('terminal output cleaning', () => {
  it('strips colours, cursor moves, titles and shell-integration marks', () => {
    const raw = '\u001b]633;C\u0007\u001b[32mPASS\u001b[0m test/a.test.ts\r\n\u001b]0;title\u001b\\\u001b[2Kdone\r\n\u001b]633;D;0\u0007';
    expect(cleanTerminalOutput(raw)).toBe('PASS test/a.test.ts\ndone\n');
  });

  it('keeps only the last state of a line redrawn with carriage returns', () => {
    expect(cleanTerminalOutput('downloading 10%\rdownloading 55%\rdownloading 100%\nok')).toBe('downloading 100%\nok');
  });

  it('leaves plain text alone', () => {
    expect(cleanTerminalOutput('a\nb\n')).toBe('a\nb\n');
  });
});
