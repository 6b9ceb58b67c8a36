// Row 13: the review webview's Markdown rendering at 8k, 32k and 128k characters of adversarial Markdown, judged linear.
import { summaryHtml as markdownHtml } from '../src/shared/summaryMarkdown';
import { formatNumber, ms, row, type BenchRow, type FamilyResult } from './benchReport';
import { median, timeOnce } from './timing';

export const RENDER_SIZES = [8_000, 32_000, 128_000] as const;

/** Linear work doubles with the text (2×); quadratic work quadruples. */
const LINEAR_PER_DOUBLING = 2.3;

/** Runs a model can write in a summary that make a backtracking renderer quadratic (emphasis, links, code, quotes). */
export const ADVERSARIAL: Readonly<Record<string, string>> = {
  emphasis: '*a',
  underscores: '_a',
  'mixed emphasis': '*a **b',
  brackets: '[a',
  'open links': '[a](',
  backticks: '`a',
  'nested quotes': '> ',
  'angle brackets': '<a',
};

function text(unit: string, chars: number): string {
  return unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars);
}

/** Times each adversarial run at each size (median CPU ms, the sizes in turn); the row judges the worst growth. */
export function renderBench(samples: number): FamilyResult {
  const rows: BenchRow[] = [];
  let worst = { name: '', perDoubling: 0, times: [] as number[] };
  for (const [name, unit] of Object.entries(ADVERSARIAL)) {
    const inputs = RENDER_SIZES.map((chars) => text(unit, chars));
    for (let warm = 0; warm < 3; warm++) for (const input of inputs) markdownHtml(input);
    const times: number[][] = RENDER_SIZES.map(() => []);
    for (let round = 0; round < samples; round++) inputs.forEach((input, at) => times[at]?.push(timeOnce(() => markdownHtml(input))));
    const medians = times.map((list) => median(list));
    const first = medians[0] as number;
    const last = medians.at(-1) as number;
    const perDoubling = (last / first) ** (1 / Math.log2((RENDER_SIZES.at(-1) as number) / RENDER_SIZES[0]));
    if (perDoubling > worst.perDoubling) worst = { name, perDoubling, times: medians };
    rows.push(row({ key: `render.${name.replace(/\s+/g, '-')}.ms.128000`, label: `13. Markdown rendering of "${unit}…", 128,000 characters`, value: last, unit: 'ms', target: '', detail: `${RENDER_SIZES.map((chars, at) => `${chars / 1000}k: ${ms(medians[at] as number)}`).join(', ')}; per doubling ${formatNumber(perDoubling, '×')}`, section: true }));
  }
  rows.unshift(
    row({
      key: 'render.perDoubling',
      label: `13. review Markdown rendering (markdown-it) of adversarial runs, 8k → 128k characters: time per doubling, worst run`,
      value: worst.perDoubling,
      unit: '×',
      target: `≤ ${LINEAR_PER_DOUBLING} (linear: 2×; quadratic: 4×)`,
      met: worst.perDoubling <= LINEAR_PER_DOUBLING,
      detail: `worst: "${ADVERSARIAL[worst.name] ?? ''}…" ${RENDER_SIZES.map((chars, at) => `${chars / 1000}k: ${ms(worst.times[at] as number)}`).join(', ')}; ${Object.keys(ADVERSARIAL).length} runs, median of ${samples} CPU samples each (the renderer before took 124 ms at 32k characters, 3.7× per doubling)`,
    }),
  );
  return {
    rows,
    limits: () =>
      `13. **Markdown rendering (${formatNumber(worst.perDoubling, '×')} per doubling, worst of ${Object.keys(ADVERSARIAL).length} adversarial runs):** a summary is model output, rendered in the review panel on every edit. markdown-it matches emphasis with CommonMark's delimiter algorithm (each run looks back only as far as an opener can be) and caps nesting, so runs such as \`*a*a*a…\` and deep quotes cost time in proportion to their length; raw HTML is escaped, links and images are shown as text, and DOMPurify (the browser's own parser) sanitizes what it renders.`,
  };
}
