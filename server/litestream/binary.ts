import { createRequire } from 'node:module'

// Litestream (https://litestream.io) streams the SQLite WAL to a replica. Its binary comes from
// npm: @flydotio/litestream's platform package (@flydotio/litestream-linux-x64 and so on, an
// optional dependency that installs without a script, as sharp's libvips does). LITESTREAM_PATH
// names another binary instead (a newer release, or one from the system).
export const REPLICA_SCHEMES = ['s3', 'file', 'sftp', 'gcs', 'abs'] as const

// Litestream's default and ours: how often the WAL is shipped to the replica, so about how much
// of the last acknowledged writes a host lost outright can take with it.
export const SYNC_INTERVAL = '1s'

export function litestreamBinary(env: Record<string, string | undefined> = process.env): string {
  const named = env.LITESTREAM_PATH?.trim()
  if (named) return named
  const require = createRequire(import.meta.url)
  const packageName = `@flydotio/litestream-${process.platform}-${process.arch}`
  try {
    return require.resolve(`${packageName}/litestream`)
  } catch {
    throw new Error(`Litestream's binary is not installed: ${packageName} is missing (it installs with npm ci on Linux and macOS, x64 and arm64); install it, or set LITESTREAM_PATH`)
  }
}

// The configuration `litestream replicate -config` reads: one database, one replica, and, given a
// loopback address, Litestream's own Prometheus metrics served there (`addr:`). Strings are
// written as JSON, which YAML reads as double-quoted strings.
export function litestreamConfig(databasePath: string, replicaUrl: string, metricsAddress: string | null = null): string {
  return [
    ...(metricsAddress === null ? [] : [`addr: ${JSON.stringify(metricsAddress)}`]),
    'dbs:',
    `  - path: ${JSON.stringify(databasePath)}`,
    '    replicas:',
    `      - url: ${JSON.stringify(replicaUrl)}`,
    `        sync-interval: ${SYNC_INTERVAL}`,
    '',
  ].join('\n')
}

// A replica URL as logged: any password in it cut out.
export function redacted(url: string): string {
  return url.replace(/^([a-z0-9]+:\/\/[^/@:]*):[^/@]*@/i, '$1:…@')
}
