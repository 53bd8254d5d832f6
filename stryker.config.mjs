// @ts-check
/**
 * Mutation testing of the security and exactly-once code (`npm run mutate`): StrykerJS applies
 * one plausible bug at a time and runs the specs that cover it (jest.mutation.config.js); a mutant
 * no spec notices "survives". The score is checked against `thresholds.break` on these files, so
 * `npm run mutate` fails when a guarantee can break unnoticed. Reports: reports/mutation/.
 * `npm run mutate -- --mutate 'libs/domain/src/**\/!(*.spec).ts'` widens the scope (slower).
 * Survivors and the figures of the last run are explained in docs/mutation.md.
 *
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
const config = {
  packageManager: 'npm',
  testRunner: 'jest',
  jest: { projectType: 'custom', configFile: 'jest.mutation.config.js', enableFindRelatedTests: false },
  // Short enough to run on a shared 2-core machine: each mutant runs only the tests that cover it
  // (perTest), the specs are transpiled without type checking (jest.mutation.config.js), and
  // mutants of module-level constants ("static": every test would have to run for each) are left
  // out — the constants that matter are pinned by name in the unit specs (docs/mutation.md).
  // `npm run mutate -- --checkers typescript` also sorts out mutants that do not compile (slower).
  coverageAnalysis: 'perTest',
  ignoreStatic: true,
  mutate: [
    // secret comparison and the decoy digest
    'libs/domain/src/ids/secret.digest.ts',
    // idempotency: key rules, deterministic delivery ids per retention generation
    'libs/domain/src/delivery/idempotency.policy.ts',
    // the delivery append: the public endpoint's order, the decoy comparison of unknown ids, "stream
    // must not exist", idempotency generations, the outcome of an unconfirmed append
    'libs/application/src/delivery/trigger-webhook.usecase.ts',
    'libs/domain/src/delivery/delivery.decider.ts',
    // the run append: one run per delivery ("stream must not exist", already_created on conflict)
    'libs/application/src/run/dispatch-delivery.usecase.ts',
    'libs/domain/src/run/run.decider.ts',
    // body limits: the size budget of an event and the streaming body reader
    'libs/domain/src/delivery/event-size.budget.ts',
    'apps/ingress/src/http/body-reader.ts',
    // the framer of untrusted payloads
    'libs/domain/src/run/untrusted-message.framer.ts',
  ],
  ignorePatterns: ['dist', 'data', 'coverage', '.kafka', 'test-artifacts', 'reports', 'docs/bench'],
  concurrency: 2,
  // Every spec here is fast: a mutant that makes one hang (a body never read, a retry loop) is a
  // timeout (detected) within seconds rather than holding a test runner for half a minute.
  timeoutMS: 5_000,
  // 89.7 % on the last run; every survivor is explained in docs/mutation.md (equivalent or redundant).
  thresholds: { high: 95, low: 85, break: 85 },
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};

export default config;
