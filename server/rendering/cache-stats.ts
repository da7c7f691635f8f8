// What the caches did for one response, reported in its Server-Timing header.
export type PageOutcome = 'hit' | 'miss' | 'off' | 'bypass' | 'none'

export interface CacheStats {
  page: PageOutcome
  recordHits: number
  recordMisses: number
  fragmentHits: number
  fragmentMisses: number
}

export function emptyCacheStats(): CacheStats {
  return { page: 'none', recordHits: 0, recordMisses: 0, fragmentHits: 0, fragmentMisses: 0 }
}

export function serverTiming(stats: CacheStats, totalMs: number): string {
  return [
    `page;desc="${stats.page}"`,
    `records;desc="hits=${stats.recordHits} misses=${stats.recordMisses}"`,
    `fragments;desc="hits=${stats.fragmentHits} misses=${stats.fragmentMisses}"`,
    `total;dur=${totalMs.toFixed(2)}`,
  ].join(', ')
}
