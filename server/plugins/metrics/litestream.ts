import { Counter, Gauge, type Registry } from 'prom-client'
import { readLag, type Lag, type LitestreamReadout } from '../../litestream/lag.ts'

// Litestream's replication lag (LITESTREAM_REPLICA_URL), in the process that runs it: the only
// one, or a cluster's primary (workers have none of these, so a cluster's scrape has them once).
// Read when scraped from Litestream's own metrics and its shadow WAL (server/litestream/lag.ts),
// once for the three gauges, within READ_TIMEOUT_MS: a Litestream that is not running, is slow
// or answers nonsense makes campfire_litestream_up 0 and counts a failure; the scrape goes on.
export function countLitestream(registry: Registry, litestream: () => LitestreamReadout | null, databasePath: string): void {
  let failures = 0
  let reading: Promise<Lag | null> | null = null
  // The gauges of one scrape are collected together (prom-client starts every collect in the
  // same turn): they share the reading in flight. Once it is in, the next scrape reads again, even
  // at once: a reading kept a while longer told a scrape right after Litestream froze it was up.
  const read = (): Promise<Lag | null> => {
    if (reading) return reading
    const running = litestream()
    reading = (running ? readLag(running, databasePath) : Promise.reject(new Error('Litestream is not running'))).catch(() => {
      failures++
      return null
    })
    void reading.then(() => (reading = null))
    return reading
  }
  const gauge = (name: string, help: string, value: (lag: Lag | null) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      aggregator: 'max',
      async collect() {
        this.set(value(await read()))
      },
    })
  gauge('campfire_litestream_up', "1 when Litestream's own metrics were read for this scrape, 0 when it is not running or did not answer within 500 ms", (lag) => (lag ? 1 : 0))
  gauge('campfire_litestream_lag_bytes', 'WAL bytes Litestream has copied from the database (about once a second) and not yet written to the replica; NaN when unknown', (lag) => lag?.bytes ?? NaN)
  gauge('campfire_litestream_lag_seconds', 'How long the replica has been behind: 0 when the lag in bytes is 0, else seconds since Litestream last wrote to the replica; NaN when unknown', (lag) => lag?.seconds ?? NaN)
  new Counter({
    name: 'campfire_litestream_read_failures_total',
    help: "Scrapes for which Litestream's own metrics could not be read (not running, no answer within 500 ms, or not understood)",
    registers: [registry],
    async collect() {
      await read()
      this.reset()
      this.inc(failures)
    },
  })
}
