import cluster, { type Worker } from 'node:cluster'
import type { Registry } from 'prom-client'
import type { Config } from '../config.ts'
import { listenForScrapes, type MetricsListener, type Scrape } from '../lib/metrics-listener.ts'
import type { Store } from '../models/store.ts'
import type { Checkpointer } from '../plugins/database.ts'
import { ANSWER_WAIT_MS, isMetricsMessage, type Message, type MetricsJson } from '../plugins/metrics/cluster-messages.ts'
import { gaugeFrom, newRegistry, promClient } from '../plugins/metrics/registry.ts'
import { countStorage } from '../plugins/metrics/storage.ts'
import { countLitestream } from '../plugins/metrics/litestream.ts'
import type { LitestreamReadout } from '../litestream/lag.ts'
import type { PrimaryLog } from './log.ts'

// With WEB_CONCURRENCY > 1 one scrape sees the whole server: the primary asks every worker for
// its metrics over IPC, adds them to its own (its writer, the WAL and its checkpoints, its
// process) with prom-client's cluster aggregation (AggregatorRegistry.aggregate: totals added
// up, and each metric's own rule where adding makes no sense), and answers METRICS_BIND itself,
// and a worker's GET /metrics (METRICS_TOKEN) through that worker. A worker that does not
// answer within ANSWER_WAIT_MS is left out of that scrape, and campfire_cluster_workers_scraped
// says so, rather than the whole scrape failing.
export interface ClusterMetrics {
  close(): Promise<void>
}

export async function startClusterMetrics(config: Config, store: Store, checkpointer: Checkpointer | null, litestream: LitestreamReadout | null, log: PrimaryLog): Promise<ClusterMetrics> {
  const registry = newRegistry()
  countStorage(registry, { store, databasePath: config.databasePath, checkpointer })
  // Litestream runs here, and only here: its lag is in the whole server's scrape once.
  if (litestream) countLitestream(registry, () => litestream, config.databasePath)
  let scraped = 0
  gaugeFrom(registry, { name: 'campfire_cluster_workers', help: 'Worker processes the server runs (WEB_CONCURRENCY)' }, () => config.webConcurrency)
  gaugeFrom(registry, { name: 'campfire_cluster_workers_scraped', help: 'Workers whose metrics this scrape holds' }, () => scraped)

  let nextId = 0
  const waiting = new Map<number, (metrics: MetricsJson | null) => void>()
  const collect = (worker: Worker) =>
    new Promise<MetricsJson | null>((resolve) => {
      const id = nextId++
      const timer = setTimeout(() => settle(null), ANSWER_WAIT_MS)
      const settle = (metrics: MetricsJson | null) => {
        clearTimeout(timer)
        waiting.delete(id)
        resolve(metrics)
      }
      waiting.set(id, settle)
      try {
        worker.send({ campfire: 'metrics-collect', id } satisfies Message)
      } catch {
        settle(null)
      }
    })

  const scrape = async (): Promise<string> => {
    const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker?.isConnected() === true)
    const answers = (await Promise.all(workers.map(collect))).filter((answer): answer is MetricsJson => answer !== null)
    scraped = answers.length
    const own = (await registry.getMetricsAsJSON()) as MetricsJson
    return promClient().AggregatorRegistry.aggregate([own, ...answers]).metrics()
  }

  const onMessage = (worker: Worker, message: unknown) => {
    if (!isMetricsMessage(message)) return
    if (message.campfire === 'metrics-collected') waiting.get(message.id)?.(message.metrics)
    if (message.campfire !== 'metrics-scrape') return
    scrape().then(
      (text) => worker.isConnected() && worker.send({ campfire: 'metrics-scraped', id: message.id, text } satisfies Message),
      (error: Error) => worker.isConnected() && worker.send({ campfire: 'metrics-scraped', id: message.id, error: error.message } satisfies Message),
    )
  }
  cluster.on('message', onMessage)

  let listener: MetricsListener | null = null
  if (config.metrics?.bind) {
    listener = await listenForScrapes(config.metrics.bind, async (): Promise<Scrape> => ({ contentType: promClient().Registry.PROMETHEUS_CONTENT_TYPE, body: await scrape() }))
    log.info({ workers: config.webConcurrency }, `Metrics listening at ${listener.url}`)
  }
  return {
    async close() {
      cluster.off('message', onMessage)
      await listener?.close()
    },
  }
}
