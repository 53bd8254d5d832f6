/**
 * The specs StrykerJS runs against each mutant (`npm run mutate`): the unit specs of the domain
 * and of the use cases, and the fast integration specs of the exactly-once and body-limit code —
 * none needs Kafka (no broker globalSetup), PostgreSQL or a built dist/.
 */
const base = require('./jest.config.js');

const { moduleNameMapper } = base.projects[0];
// Transpiled only (no type check per mutant): `npm run typecheck` guards the types.
const transform = { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.spec.json', isolatedModules: true }] };

module.exports = {
  rootDir: __dirname,
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper,
  transform,
  testEnvironment: 'node',
  testTimeout: 8_000,
  testMatch: [
    '<rootDir>/libs/domain/src/**/*.unit.spec.ts',
    '<rootDir>/libs/application/src/**/*.unit.spec.ts',
    '<rootDir>/libs/application/src/delivery/trigger-webhook.usecase.int.spec.ts',
    '<rootDir>/libs/application/src/run/dispatch-delivery.race.int.spec.ts',
    '<rootDir>/libs/application/src/run/store-dispatch.worker.int.spec.ts',
    '<rootDir>/apps/ingress/src/http/*.unit.spec.ts',
  ],
};
