// One size of the growth curves in a fresh process: open the session with its saved counts, measure, update the panel, list the picker; prints the peak memory.
import { readFileSync } from 'node:fs';
import { SessionLog } from '../src/core/session/sessionLog';
import { CountCache } from '../src/core/tokens/countCache';
import { TokenCounter } from '../src/core/tokens/tokenCounter';
import { collectGarbage } from './timing';
import { growthDeps, panelUpdate, restorePicker } from './growthWorkload';
import { exitFlushed } from './flushedExit';

/** argv: session file, count cache file ("" to load nothing but the tokenizer: the baseline). */
async function main(): Promise<void> {
  const [file = '', cacheFile = ''] = process.argv.slice(2);
  const counter = await TokenCounter.create('claude-opus-4-5');
  counter.countText('warm up');
  collectGarbage();
  const base = process.memoryUsage();
  if (file) {
    const { log } = await SessionLog.open(file, { readOnly: true });
    const cache = CountCache.fromJSON(JSON.parse(readFileSync(cacheFile, 'utf8')) as unknown);
    const deps = growthDeps(counter, cache);
    panelUpdate(log.path(), deps);
    restorePicker(log.path());
    collectGarbage();
    const retained = process.memoryUsage().heapUsed - base.heapUsed;
    await log.close();
    process.stdout.write(`${JSON.stringify({ peakRssMb: process.resourceUsage().maxRSS / 1024, retainedHeapMb: retained / 1048576 })}\n`);
    return;
  }
  process.stdout.write(`${JSON.stringify({ peakRssMb: process.resourceUsage().maxRSS / 1024, retainedHeapMb: 0 })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  exitFlushed(1);
});
