export * from './decider.spec-helper';
export * from './eventually';
export * from './domain.fixtures';
export * from './json-parse.fixtures';
export * from './cpu-time';
