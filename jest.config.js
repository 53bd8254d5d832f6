/** Three tiers named by suffix: *.unit.spec.ts, *.int.spec.ts, *.e2e.spec.ts. */
const moduleNameMapper = {
  '^@wts/(contracts|domain|event-store|application|config|observability|messaging|testing|platform|read-models|runtime)$':
    '<rootDir>/libs/$1/src',
};
const transform = {
  '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.spec.json' }],
};
const base = { rootDir: __dirname, moduleFileExtensions: ['ts', 'js', 'json'], moduleNameMapper, transform, testEnvironment: 'node' };
/** int and e2e run against the real Kafka test broker: started once when KAFKA_BROKERS is unset. */
const kafkaBroker = {
  globalSetup: '<rootDir>/test/support/kafka-global-setup.ts',
  globalTeardown: '<rootDir>/test/support/kafka-global-teardown.ts',
};

module.exports = {
  /**
   * Parallel workers for every tier: most suites wait on servers, brokers and child processes, not
   * on the CPU, so three workers on two cores overlap the waits. Each suite owns what it uses (its
   * own temp data dir, PostgreSQL database, Redis key prefix, Kafka topics or groups and free ports),
   * so suites never meet. WTS_TEST_WORKERS overrides (1: one at a time).
   */
  maxWorkers: Number(process.env.WTS_TEST_WORKERS ?? 3),
  /**
   * Suites share the machine with the other workers: a hook or test without its own timeout gets
   * 30 s, not jest's 5 s, so a loaded machine slows it without failing it (jest has one timeout
   * for every project).
   */
  testTimeout: 30_000,
  /** The longest suites start first (test/support/suite-durations.json), so none runs alone at the end. */
  testSequencer: '<rootDir>/test/support/longest-first.sequencer.js',
  /** A run that cannot exit (an open handle) fails after a grace period instead of hanging; never --forceExit. */
  reporters: ['default', '<rootDir>/test/support/exit-watchdog.reporter.js'],
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,test}/**/*.unit.spec.ts'] },
    { ...base, ...kafkaBroker, displayName: 'int', testMatch: ['<rootDir>/{apps,libs,test}/**/*.int.spec.ts'] },
    { ...base, ...kafkaBroker, displayName: 'e2e', testMatch: ['<rootDir>/{apps,libs,test}/**/*.e2e.spec.ts'] },
  ],
};
