// What a command printed in a terminal, as the model should read it: escape sequences and carriage-return redraws removed.
import { stripVTControlCharacters } from 'node:util';

/** OSC sequences (titles, shell-integration marks like OSC 633) ended by BEL or ST; node's stripper misses the ST form. */
const ESC = String.fromCharCode(27);
const BEL = String.fromCharCode(7);
const OSC = new RegExp(`${ESC}\\][^${BEL}${ESC}]*(?:${BEL}|${ESC}\\\\)`, 'g');

/**
 * Plain text from raw terminal output: OSC and CSI sequences stripped, CRLF as LF, and a line redrawn with bare
 * carriage returns (progress bars, spinners) kept as its last state only.
 */
export function cleanTerminalOutput(raw: string): string {
  const plain = stripVTControlCharacters(raw.replace(OSC, '')).replace(/\r\n/g, '\n');
  return plain
    .split('\n')
    .map((line) => (line.includes('\r') ? (line.split('\r').filter((part) => part !== '').at(-1) ?? '') : line))
    .join('\n');
}
