// The growth curves as an SVG line chart: CPU time against session length, both axes logarithmic.

export interface Curve {
  label: string;
  points: Array<{ size: number; ms: number }>;
}

const WIDTH = 900;
const HEIGHT = 420;
const MARGIN = { left: 70, right: 360, top: 40, bottom: 50 };
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b'];

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function tickLabel(ms: number): string {
  if (ms >= 1000) return `${ms / 1000} s`;
  if (ms >= 1) return `${ms} ms`;
  return `${Math.round(ms * 1000)} µs`;
}

export function growthSvg(title: string, curves: readonly Curve[]): string {
  const points = curves.flatMap((curve) => curve.points).filter((point) => point.ms > 0 && Number.isFinite(point.ms));
  const sizes = points.map((point) => point.size);
  const times = points.map((point) => point.ms);
  const minX = Math.log10(Math.min(...sizes));
  const maxX = Math.log10(Math.max(...sizes));
  const minY = Math.floor(Math.log10(Math.min(...times)));
  const maxY = Math.ceil(Math.log10(Math.max(...times)));
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = (size: number): number => MARGIN.left + ((Math.log10(size) - minX) / Math.max(1e-9, maxX - minX)) * plotWidth;
  const y = (ms: number): number => MARGIN.top + plotHeight - ((Math.log10(ms) - minY) / Math.max(1e-9, maxY - minY)) * plotHeight;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${MARGIN.left}" y="22" font-size="14">${escape(title)}</text>`,
  ];
  for (let decade = minY; decade <= maxY; decade++) {
    const value = 10 ** decade;
    parts.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left + plotWidth}" y1="${y(value).toFixed(1)}" y2="${y(value).toFixed(1)}" stroke="#ddd"/>`, `<text x="${MARGIN.left - 8}" y="${(y(value) + 4).toFixed(1)}" text-anchor="end">${tickLabel(value)}</text>`);
  }
  for (const size of [...new Set(sizes)].sort((a, b) => a - b)) {
    parts.push(`<line x1="${x(size).toFixed(1)}" x2="${x(size).toFixed(1)}" y1="${MARGIN.top}" y2="${MARGIN.top + plotHeight}" stroke="#ddd"/>`, `<text x="${x(size).toFixed(1)}" y="${MARGIN.top + plotHeight + 18}" text-anchor="middle">${size.toLocaleString('en-US')}</text>`);
  }
  parts.push(`<text x="${MARGIN.left + plotWidth / 2}" y="${HEIGHT - 10}" text-anchor="middle">entries in the session</text>`);
  curves.forEach((curve, index) => {
    const color = COLORS[index % COLORS.length] ?? '#000';
    const shown = curve.points.filter((point) => point.ms > 0 && Number.isFinite(point.ms));
    parts.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${shown.map((point) => `${x(point.size).toFixed(1)},${y(point.ms).toFixed(1)}`).join(' ')}"/>`);
    for (const point of shown) parts.push(`<circle cx="${x(point.size).toFixed(1)}" cy="${y(point.ms).toFixed(1)}" r="3" fill="${color}"/>`);
    const legendY = MARGIN.top + 10 + index * 20;
    parts.push(`<line x1="${WIDTH - MARGIN.right + 15}" x2="${WIDTH - MARGIN.right + 35}" y1="${legendY}" y2="${legendY}" stroke="${color}" stroke-width="2"/>`, `<text x="${WIDTH - MARGIN.right + 40}" y="${legendY + 4}">${escape(curve.label)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n');
}
