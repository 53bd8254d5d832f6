export * from './decider.spec-helper';
export * from './eventually';
