/** Three tiers named by suffix: *.unit.spec.ts, *.int.spec.ts, *.e2e.spec.ts. */
const moduleNameMapper = {
  '^@wts/(contracts|domain|event-store|application|config|observability|messaging|testing|platform)$':
    '<rootDir>/libs/$1/src',
};
const transform = {
  '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.spec.json' }],
};
const base = { rootDir: __dirname, moduleFileExtensions: ['ts', 'js', 'json'], moduleNameMapper, transform, testEnvironment: 'node' };

module.exports = {
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,test}/**/*.unit.spec.ts'] },
    { ...base, displayName: 'int', testMatch: ['<rootDir>/{apps,libs,test}/**/*.int.spec.ts'] },
    { ...base, displayName: 'e2e', testMatch: ['<rootDir>/{apps,libs,test}/**/*.e2e.spec.ts'] },
  ],
};
