/**
 * A connection string fit for logs: `esdb://user:password@host:2113?tls=false` becomes
 * `esdb://***@host:2113?tls=false`. Query parameters are kept (they hold no secrets: certificates
 * are referenced by file path).
 */
export function describeEventStoreDbConnection(connectionString: string): string {
  return connectionString.trim().replace(/^([a-z+]+:\/\/)[^@/?]*@/i, '$1***@');
}
