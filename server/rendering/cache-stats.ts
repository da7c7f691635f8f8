// What the caches did for one response, reported in its Server-Timing header.
export type PageOutcome = 'hit' | 'miss' | 'off' | 'bypass' | 'none'

export interface CacheStats {
  // The whole response, kept for the same request at the same database generation (the cached
  // read routes only): 'none' elsewhere. A hit consults no other cache.
  memo: PageOutcome
  page: PageOutcome
  // The viewer's shell around a cached part (room and search pages): 'none' on other pages.
  shell: PageOutcome
  recordHits: number
  recordMisses: number
  fragmentHits: number
  fragmentMisses: number
}

export function emptyCacheStats(): CacheStats {
  return { memo: 'none', page: 'none', shell: 'none', recordHits: 0, recordMisses: 0, fragmentHits: 0, fragmentMisses: 0 }
}

// `phases` are a route's own stages, in order, each with its duration in ms (a post's write,
// render and cable fan-out): they come before the total.
export function serverTiming(stats: CacheStats, totalMs: number, phases: readonly (readonly [string, number])[] = []): string {
  return [
    ...(stats.memo === 'none' ? [] : [`memo;desc="${stats.memo}"`]),
    `page;desc="${stats.page}"`,
    ...(stats.shell === 'none' ? [] : [`shell;desc="${stats.shell}"`]),
    `records;desc="hits=${stats.recordHits} misses=${stats.recordMisses}"`,
    `fragments;desc="hits=${stats.fragmentHits} misses=${stats.fragmentMisses}"`,
    ...phases.map(([name, ms]) => `${name};dur=${ms.toFixed(2)}`),
    `total;dur=${totalMs.toFixed(2)}`,
  ].join(', ')
}
