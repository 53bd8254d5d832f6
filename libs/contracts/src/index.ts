export * from './event.types';
export * from './catalog.events';
export * from './webhook.events';
export * from './delivery.events';
export * from './run.events';
export * from './streams';
export * from './all-events';
export * from './upcast';
