// A Prometheus histogram whose label sets are bound once, so observing is a few additions and no
// allocation: a request's timing is counted on the path of every answer, where prom-client's own
// Histogram would build and hash its labels each time. What a scrape reads has the shape of
// prom-client's metric objects, so a prom-client Registry serves it and a cluster's primary adds
// its workers' cells together (AggregatorRegistry, by label set).
export type Labels = Readonly<Record<string, string>>

export class HistogramCell {
  // counts[i]: observations in (bounds[i-1], bounds[i]]; the last one: above every bound.
  readonly counts: Float64Array
  sum = 0
  count = 0

  constructor(
    private readonly bounds: readonly number[],
    readonly labels: Labels,
  ) {
    this.counts = new Float64Array(bounds.length + 1)
  }

  observe(value: number): void {
    const bounds = this.bounds
    let i = 0
    while (i < bounds.length && value > bounds[i]!) i++
    this.counts[i]!++
    this.sum += value
    this.count++
  }
}

interface MetricValue {
  value: number
  labels: Record<string, string | number>
  metricName: string
}

export class HistogramCells {
  readonly type = 'histogram'
  readonly aggregator = 'sum'
  private readonly cells = new Map<string, HistogramCell>()

  constructor(
    readonly name: string,
    readonly help: string,
    readonly bounds: readonly number[],
  ) {}

  // The cell for one label set, made on first use (label values must not contain "\u0000").
  cell(labels: Labels): HistogramCell {
    const key = Object.entries(labels).map(([name, value]) => `${name}\u0000${value}`).join('\u0000')
    let cell = this.cells.get(key)
    if (!cell) this.cells.set(key, (cell = new HistogramCell(this.bounds, labels)))
    return cell
  }

  // What a prom-client Registry reads (its metric objects' `get`).
  get(): { name: string; help: string; type: 'histogram'; aggregator: 'sum'; values: MetricValue[] } {
    const values: MetricValue[] = []
    for (const cell of this.cells.values()) {
      let cumulative = 0
      this.bounds.forEach((bound, i) => {
        cumulative += cell.counts[i]!
        values.push({ value: cumulative, labels: { ...cell.labels, le: bound }, metricName: `${this.name}_bucket` })
      })
      values.push({ value: cell.count, labels: { ...cell.labels, le: '+Inf' }, metricName: `${this.name}_bucket` })
      values.push({ value: cell.sum, labels: { ...cell.labels }, metricName: `${this.name}_sum` })
      values.push({ value: cell.count, labels: { ...cell.labels }, metricName: `${this.name}_count` })
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values }
  }
}
