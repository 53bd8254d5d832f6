// Writes docs/mutation-report.md from StrykerJS' JSON report (reports/mutation/mutation.json):
// the score per file and every mutant that survived or had no covering test, with its place and
// replacement. The explanations of the survivors are kept by hand in docs/mutation.md.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const REPORT = 'reports/mutation/mutation.json';
const OUT = 'docs/mutation-report.md';

if (!existsSync(REPORT)) {
  process.stderr.write(`${REPORT} is missing: run \`npm run mutate\` first\n`);
  process.exit(1);
}
const report = JSON.parse(readFileSync(REPORT, 'utf8'));
const DETECTED = new Set(['Killed', 'Timeout']);
const UNDETECTED = new Set(['Survived', 'NoCoverage']);
const rows = [];
const undetected = [];
let killed = 0;
let valid = 0;
for (const [file, { mutants }] of Object.entries(report.files).sort(([a], [b]) => a.localeCompare(b))) {
  const counts = { Killed: 0, Timeout: 0, Survived: 0, NoCoverage: 0, CompileError: 0, RuntimeError: 0, Ignored: 0 };
  for (const mutant of mutants) counts[mutant.status] = (counts[mutant.status] ?? 0) + 1;
  const detected = mutants.filter((mutant) => DETECTED.has(mutant.status)).length;
  const scored = mutants.filter((mutant) => DETECTED.has(mutant.status) || UNDETECTED.has(mutant.status)).length;
  killed += detected;
  valid += scored;
  const score = scored === 0 ? 'n/a' : `${((100 * detected) / scored).toFixed(1)} %`;
  rows.push(
    `| \`${file}\` | ${score} | ${counts.Killed} | ${counts.Timeout} | ${counts.Survived} | ${counts.NoCoverage} | ${counts.CompileError} |`,
  );
  for (const mutant of mutants
    .filter((each) => UNDETECTED.has(each.status))
    .sort((a, b) => a.location.start.line - b.location.start.line)) {
    const replacement = String(mutant.replacement ?? '')
      .replace(/\s+/g, ' ')
      .replace(/\|/g, '\\|')
      .slice(0, 80);
    undetected.push(`| \`${file}:${mutant.location.start.line}\` | ${mutant.mutatorName} | \`${replacement}\` | ${mutant.status} |`);
  }
}
const total = valid === 0 ? 'n/a' : `${((100 * killed) / valid).toFixed(2)} %`;
const lines = [
  '# Mutation report (generated)',
  '',
  `Written by \`npm run mutate\` (\`scripts/test/mutation-summary.mjs\`) from \`${REPORT}\` on ${new Date().toISOString().slice(0, 10)}.`,
  'Explanations of the survivors: `docs/mutation.md`.',
  '',
  `**Mutation score: ${total}** (${killed} of ${valid} mutants detected; compile errors excluded).`,
  '',
  '| file | score | killed | timeout | survived | no coverage | compile error |',
  '|---|---|---|---|---|---|---|',
  ...rows,
  '',
  '## Undetected mutants',
  '',
  ...(undetected.length === 0 ? ['None.'] : ['| where | mutator | replacement | status |', '|---|---|---|---|', ...undetected]),
  '',
];
writeFileSync(OUT, lines.join('\n'));
process.stdout.write(`${OUT}: mutation score ${total}, ${undetected.length} undetected\n`);
