export * from './decider.spec-helper';
