// The container's HEALTHCHECK (the Dockerfile): `node dist/healthcheck.js` asks the server in the
// same container for GET /up, as the benchmark harness and a load balancer do, and exits 0 when it
// answers 200 with its green page, 1 otherwise, saying why in one line. It reads only where the
// server listens (HTTP_PORT, else PORT, else 3000; HTTP_BIND, whose "any address" it asks on
// loopback), so it costs a few milliseconds and touches nothing.
const TIMEOUT_MS = 4_000

if (process.argv.slice(2).some((arg) => arg === '--help' || arg === '-h')) {
  process.stdout.write(`Usage: node dist/healthcheck.js   (the container image's HEALTHCHECK)

  Asks the server on HTTP_BIND:HTTP_PORT (else PORT, else 3000) for GET /up and exits 0 when it
  answers 200, 1 otherwise with one line saying why. Nothing else is read or written.
`)
  process.exit(0)
}

function upUrl(env: Record<string, string | undefined>): string {
  const port = env.HTTP_PORT?.trim() || env.PORT?.trim() || '3000'
  const bind = env.HTTP_BIND?.trim() || '0.0.0.0'
  const host = bind === '0.0.0.0' ? '127.0.0.1' : bind === '::' ? '[::1]' : bind.includes(':') ? `[${bind}]` : bind
  return `http://${host}:${port}/up`
}

const url = upUrl(process.env)
try {
  const response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS), headers: { 'user-agent': 'Campfire healthcheck' } })
  const body = await response.text()
  if (response.status !== 200 || !body.includes('background-color: green')) {
    console.error(`unhealthy: GET ${url} answered ${response.status}`)
    process.exit(1)
  }
} catch (error) {
  const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name
  console.error(`unhealthy: GET ${url} failed (${cause})`)
  process.exit(1)
}
