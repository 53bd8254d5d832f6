#!/usr/bin/env node
/**
 * An A/B against a base build as a self-contained SVG, in the style of latency-chart.mjs: one row
 * per figure, the ratio to the base before and after a change as two bars, the base at 1 marked
 * (right of it: better than the base). Ratios are "higher is better": throughput main / base,
 * latency base / main. A missing ratio (null) draws no bar.
 *
 *   node scripts/bench/ab-ratio-chart.mjs docs/bench/consolidation/ab-ratios.json docs/bench/consolidation/ab-ratios.svg
 *
 * Input: { "title", "before_label", "now_label", "rows": [{ "label", "before", "now" }] }.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { escape } from './latency-chart.mjs';

const WIDTH = 820;
const BAR = 12;
const ROW = 2 * BAR + 14;
const MARGIN = { left: 330, right: 60, top: 60, bottom: 40 };
const COLORS = { before: '#c7c7c7', now: '#1f77b4' };

export function abRatioChart(report) {
  const maxX = Math.max(1.1, ...report.rows.flatMap((row) => [row.before ?? 0, row.now ?? 0])) * 1.05;
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const x = (v) => MARGIN.left + (v / maxX) * plotW;
  const height = MARGIN.top + report.rows.length * ROW + MARGIN.bottom;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${height}" fill="white"/>`,
    `<text x="20" y="22" font-size="14" font-weight="bold">${escape(report.title)}</text>`,
  ];
  const legend = [
    ['before', report.before_label],
    ['now', report.now_label],
  ];
  legend.forEach(([key, label], index) => {
    const lx = MARGIN.left + index * 250;
    parts.push(
      `<rect x="${lx}" y="34" width="12" height="12" fill="${COLORS[key]}"/>`,
      `<text x="${lx + 18}" y="44">${escape(label)}</text>`,
    );
  });
  for (const tick of [0, 0.25, 0.5, 0.75, 1, 1.25].filter((t) => t <= maxX)) {
    const tx = x(tick);
    const base = tick === 1;
    parts.push(
      `<line x1="${tx}" y1="${MARGIN.top - 4}" x2="${tx}" y2="${height - MARGIN.bottom}" stroke="${base ? '#d62728' : '#e5e5e5'}" stroke-width="${base ? 2 : 1}"/>`,
      `<text x="${tx}" y="${height - MARGIN.bottom + 16}" text-anchor="middle">${base ? '1 (base)' : tick}</text>`,
    );
  }
  report.rows.forEach((row, index) => {
    const top = MARGIN.top + index * ROW;
    parts.push(`<text x="${MARGIN.left - 10}" y="${top + BAR + 4}" text-anchor="end">${escape(row.label)}</text>`);
    ['before', 'now'].forEach((key, k) => {
      const value = row[key];
      if (value === null || value === undefined) return;
      const y = top + k * BAR;
      parts.push(
        `<rect x="${MARGIN.left}" y="${y}" width="${x(value) - MARGIN.left}" height="${BAR - 2}" fill="${COLORS[key]}"/>`,
        `<text x="${x(value) + 4}" y="${y + BAR - 3}" font-size="10">${value.toFixed(2)}</text>`,
      );
    });
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

const [input, output] = process.argv.slice(2);
if (input && output) writeFileSync(output, abRatioChart(JSON.parse(readFileSync(input, 'utf8'))));
