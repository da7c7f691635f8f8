// How a cluster's primary and its workers talk about metrics over IPC (the primary's side is
// server/cluster/metrics.ts): the primary asks each worker for its registry (metrics-collect /
// metrics-collected), and a worker scraped on GET /metrics asks the primary for the whole server
// (metrics-scrape / metrics-scraped). A worker that does not answer within ANSWER_WAIT_MS is
// left out of that scrape.
import cluster from 'node:cluster'
import type { Registry } from 'prom-client'

export const ANSWER_WAIT_MS = 2_000

export type MetricsJson = Awaited<ReturnType<Registry['getMetricsAsJSON']>>
export type Message =
  | { campfire: 'metrics-collect'; id: number }
  | { campfire: 'metrics-collected'; id: number; metrics: MetricsJson }
  | { campfire: 'metrics-scrape'; id: number }
  | { campfire: 'metrics-scraped'; id: number; text?: string; error?: string }

export function isMetricsMessage(message: unknown): message is Message {
  const kind = (message as { campfire?: unknown } | null)?.campfire
  return typeof kind === 'string' && kind.startsWith('metrics-') && Number.isInteger((message as { id?: unknown }).id)
}

// A worker's side: it gives the primary its registry when asked, and asks the primary for the
// whole server's metrics when its own GET /metrics is scraped.
export function answerPrimary(registry: Registry): { wholeServer(): Promise<string>; stop(): void } {
  let nextId = 0
  const asked = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void }>()
  const onMessage = (message: unknown) => {
    if (!isMetricsMessage(message)) return
    if (message.campfire === 'metrics-collect') {
      void registry.getMetricsAsJSON().then((metrics) => process.send?.({ campfire: 'metrics-collected', id: message.id, metrics: metrics as MetricsJson } satisfies Message))
    }
    if (message.campfire !== 'metrics-scraped') return
    const request = asked.get(message.id)
    asked.delete(message.id)
    if (message.text !== undefined) request?.resolve(message.text)
    else request?.reject(new Error(message.error ?? 'the primary did not say'))
  }
  process.on('message', onMessage)
  return {
    wholeServer: () =>
      new Promise<string>((resolve, reject) => {
        const id = nextId++
        const timer = setTimeout(() => {
          asked.delete(id)
          reject(new Error('the primary did not answer in time'))
        }, ANSWER_WAIT_MS * 2)
        asked.set(id, { resolve: (text) => (clearTimeout(timer), resolve(text)), reject: (error) => (clearTimeout(timer), reject(error)) })
        if (process.send && cluster.worker?.isConnected()) process.send({ campfire: 'metrics-scrape', id } satisfies Message)
        else asked.get(id)?.reject(new Error('the primary is gone'))
      }),
    stop: () => void process.off('message', onMessage),
  }
}
