export * from './app.config';
export type { TrustProxy } from './trust-proxy.setting';
