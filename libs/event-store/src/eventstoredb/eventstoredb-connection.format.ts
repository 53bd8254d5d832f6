/**
 * A connection string fit for logs: `esdb://user:password@host:2113?tls=false` becomes
 * `esdb://***@host:2113?tls=false`. Query parameters are kept (they hold no secrets: certificates
 * are referenced by file path).
 *
 * A password may hold `/`, `?` or `@` (the client takes them unescaped), so the credentials end at
 * the last `@` of the string, not at the first `/`, `?` or `@`: when in doubt, more is hidden,
 * never less.
 */
export function describeEventStoreDbConnection(connectionString: string): string {
  const trimmed = connectionString.trim();
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(trimmed)?.[0];
  if (scheme === undefined) return trimmed.includes('@') ? '***' : trimmed;
  const rest = trimmed.slice(scheme.length);
  const at = rest.lastIndexOf('@');
  return at < 0 ? trimmed : `${scheme}***@${rest.slice(at + 1)}`;
}
