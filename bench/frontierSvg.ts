// Draws one window's picture as an SVG: every policy and swept setting as cost against availability (with its 90 % interval), the points nothing is both cheaper and better than, Claude Code as a band.
import { paretoFront, type FrontierPoint } from './frontier';

const WIDTH = 760;
const HEIGHT = 440;
const MARGIN = { left: 64, right: 24, top: 40, bottom: 52 };
const COLORS: Readonly<Record<FrontierPoint['kind'], string>> = { ours: '#d9480f', sweep: '#f08c00', peer: '#1c7ed6' };

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Rounds an axis range out to nice steps. */
function ticks(min: number, max: number, count: number): number[] {
  const raw = (max - min) / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw || 1));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let v = Math.floor(min / step) * step; v <= max + step / 2; v += step) out.push(Math.round(v * 1000) / 1000);
  return out;
}

/** The SVG text of one window's picture. `bandKeys` are the two ends of a peer drawn as a band (Claude Code). */
export function frontierSvg(title: string, points: readonly FrontierPoint[], bandKeys: readonly [string, string]): string {
  const costs = points.map((p) => p.cost);
  const xTicks = ticks(Math.min(...costs) * 0.9, Math.max(...costs) * 1.05, 6);
  const xMin = xTicks[0] ?? 0;
  const xMax = xTicks[xTicks.length - 1] ?? 1;
  // The availability axis starts a little below the lowest interval (in 5 % steps), so close points stay apart.
  const lowest = Math.min(...points.map((p) => p.low));
  const yMin = Math.max(0, Math.floor((lowest - 0.02) * 20) / 20);
  const yStep = 1 - yMin > 0.5 ? 0.2 : 1 - yMin > 0.2 ? 0.05 : 0.02;
  const yTicks: number[] = [];
  for (let t = 1; t >= yMin - 1e-9; t -= yStep) yTicks.unshift(Math.round(t * 1000) / 1000);
  const x = (cost: number): number => MARGIN.left + ((cost - xMin) / (xMax - xMin || 1)) * (WIDTH - MARGIN.left - MARGIN.right);
  const y = (share: number): number => HEIGHT - MARGIN.bottom - ((share - (yTicks[0] ?? 0)) / (1 - (yTicks[0] ?? 0) || 1)) * (HEIGHT - MARGIN.top - MARGIN.bottom);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
    `<text x="${WIDTH / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${escape(title)}</text>`,
  ];
  for (const t of xTicks) out.push(`<line x1="${x(t)}" y1="${MARGIN.top}" x2="${x(t)}" y2="${HEIGHT - MARGIN.bottom}" stroke="#eee"/><text x="${x(t)}" y="${HEIGHT - MARGIN.bottom + 16}" text-anchor="middle">$${t.toFixed(t < 10 ? 1 : 0)}</text>`);
  for (const t of yTicks) out.push(`<line x1="${MARGIN.left}" y1="${y(t)}" x2="${WIDTH - MARGIN.right}" y2="${y(t)}" stroke="#eee"/><text x="${MARGIN.left - 6}" y="${y(t) + 4}" text-anchor="end">${Math.round(t * 100)} %</text>`);
  out.push(`<text x="${WIDTH / 2}" y="${HEIGHT - 12}" text-anchor="middle">cost of the sessions, $ — lower is better</text>`);
  out.push(`<text transform="translate(16 ${HEIGHT / 2}) rotate(-90)" text-anchor="middle">availability per call — higher is better</text>`);
  const line = paretoFront(points);
  out.push(`<polyline fill="none" stroke="#2b8a3e" stroke-width="2" stroke-dasharray="6 4" points="${line.map((p) => `${x(p.cost).toFixed(1)},${y(p.availability).toFixed(1)}`).join(' ')}"/>`);
  const [low, high] = bandKeys.map((key) => points.find((p) => p.key === key));
  if (low && high) out.push(`<line x1="${x(low.cost)}" y1="${y(low.availability)}" x2="${x(high.cost)}" y2="${y(high.availability)}" stroke="${COLORS.peer}" stroke-width="10" stroke-opacity="0.25" stroke-linecap="round"/>`);
  for (const p of line) out.push(`<circle cx="${x(p.cost).toFixed(1)}" cy="${y(p.availability).toFixed(1)}" r="12" fill="none" stroke="#2b8a3e" stroke-width="2"/>`);
  for (const p of points) out.push(`<line x1="${x(p.cost).toFixed(1)}" y1="${y(p.low).toFixed(1)}" x2="${x(p.cost).toFixed(1)}" y2="${y(p.high).toFixed(1)}" stroke="${COLORS[p.kind]}" stroke-width="1.5" stroke-opacity="0.6"/>`);
  for (const [i, p] of points.entries()) {
    const r = p.kind === 'ours' ? 7 : p.kind === 'sweep' ? 4 : 5.5;
    out.push(`<circle cx="${x(p.cost).toFixed(1)}" cy="${y(p.availability).toFixed(1)}" r="${r}" fill="${COLORS[p.kind]}" stroke="#333" stroke-width="0.6"><title>${escape(`${p.label}: $${p.cost.toFixed(2)}, ${(p.availability * 100).toFixed(0)} %`)}</title></circle>`);
    const dy = p.kind === 'sweep' ? (i % 2 === 0 ? 14 : -9) : -10;
    out.push(`<text x="${(x(p.cost) + 8).toFixed(1)}" y="${(y(p.availability) + dy).toFixed(1)}" font-size="${p.kind === 'sweep' ? 10 : 12}" fill="#222">${escape(p.label)}</text>`);
  }
  out.push(`<text x="${WIDTH - MARGIN.right}" y="${MARGIN.top - 6}" text-anchor="end" fill="#2b8a3e">green: nothing measured is both cheaper and better (the verdict is the paired table)</text>`);
  out.push('</svg>');
  return out.join('\n');
}
