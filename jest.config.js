/** Three tiers named by suffix: *.unit.spec.ts, *.int.spec.ts, *.e2e.spec.ts. */
const moduleNameMapper = {
  '^@wts/(contracts|domain|event-store|application|config|observability|messaging|testing|platform|read-models)$': '<rootDir>/libs/$1/src',
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
  /** A run that cannot exit (an open handle) fails after a grace period instead of hanging; never --forceExit. */
  reporters: ['default', '<rootDir>/test/support/exit-watchdog.reporter.js'],
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,test}/**/*.unit.spec.ts'] },
    { ...base, ...kafkaBroker, displayName: 'int', testMatch: ['<rootDir>/{apps,libs,test}/**/*.int.spec.ts'] },
    { ...base, ...kafkaBroker, displayName: 'e2e', testMatch: ['<rootDir>/{apps,libs,test}/**/*.e2e.spec.ts'] },
  ],
};
