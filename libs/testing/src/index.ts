export * from './decider.kit';
export * from './eventually';
export * from './domain.fixtures';
export * from './json-parse.fixtures';
export * from './cpu-time';
export * from './per-test-context.kit';
export * from './sqlite-file.kit';
