export * from './app.config';
export type { TrustProxy } from './trust-proxy.setting';
export type { KafkaConnectionSettings, KafkaSaslMechanism, KafkaSaslSettings } from './kafka-connection.setting';
export { isLoopbackUrl, type OidcSettings } from './oidc.setting';
export { decodeEncryptionKeys, secretsSettings, type KeyEntry, type SecretsSettings } from './encryption-keys.setting';
