import { isIP } from 'node:net'

// Prometheus metrics (docs/operations.md, "Metrics"): off unless METRICS_TOKEN is set (GET
// /metrics on the server's own port, with `Authorization: Bearer <token>`) or METRICS_BIND names
// a loopback address and a port of its own (GET /metrics there, with no token). Chat users never
// reach them: a session cookie, an administrator's included, is not a token.
export interface MetricsConfig {
  readonly token: string | null
  readonly bind: { readonly host: string; readonly port: number } | null
}

export class MetricsConfigError extends Error {}

type Env = Record<string, string | undefined>

const MIN_TOKEN_LENGTH = 16

export function readMetricsConfig(env: Env, httpPort: number): MetricsConfig | null {
  const token = readToken(env.METRICS_TOKEN)
  const bind = readBind(env.METRICS_BIND, httpPort)
  return token === null && bind === null ? null : Object.freeze({ token, bind })
}

function readToken(value: string | undefined): string | null {
  const token = value?.trim() ?? ''
  if (token === '') return null
  if (token.length < MIN_TOKEN_LENGTH || !/^[\x21-\x7e]+$/.test(token)) throw new MetricsConfigError(`METRICS_TOKEN must be at least ${MIN_TOKEN_LENGTH} printable characters with no spaces (generate one with: openssl rand -hex 32)`)
  return token
}

// 127.0.0.1:9394, [::1]:9394 or localhost:9394; port 0 takes any free one (the log names it).
function readBind(value: string | undefined, httpPort: number): MetricsConfig['bind'] {
  const text = value?.trim() ?? ''
  if (text === '') return null
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(text)
  const host = match?.[1] ?? match?.[2] ?? ''
  const port = Number(match?.[3])
  if (!match || !isLoopback(host) || port > 65535) throw new MetricsConfigError(`METRICS_BIND must be a loopback address and port, e.g. 127.0.0.1:9394, got "${text}" (metrics are never served to the network this way: use METRICS_TOKEN behind your proxy instead)`)
  if (port !== 0 && port === httpPort) throw new MetricsConfigError(`METRICS_BIND needs a port of its own, not HTTP_PORT's ${httpPort}, got "${text}"`)
  return Object.freeze({ host, port })
}

function isLoopback(host: string): boolean {
  if (host === 'localhost') return true
  if (isIP(host) === 4) return host.startsWith('127.')
  return isIP(host) === 6 && /^(0{0,4}:){2,7}0{0,3}1$|^::1$/.test(host)
}
