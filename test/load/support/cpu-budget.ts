// The server's CPU per navigation by part, from its CPU ledger (server/lib/cpu-ledger.ts, on with
// CAMPFIRE_CPU_LEDGER=1): bench:users' budget (docs/scaling.md, "The budget per navigation").
// Every figure is measured: the ledger charges the process's CPU time (all threads) to the part
// that was running, and the parts add up to the process's CPU over the step. `gc` is the
// collector's pauses, which happen inside the parts (already counted there).

export interface BudgetRow {
  part: string
  ms_per_navigation: number
  percent: number
  // Events of that part per navigation (requests, commands, sockets written to, transactions).
  per_navigation: number
}

export interface CpuBudget {
  navigations: number
  total_ms_per_navigation: number
  rows: BudgetRow[]
  gc_ms_per_navigation: number
  gc_per_navigation: number
}

export function cpuBudget(ledger: Record<string, { ms: number; count: number }> | undefined, navigations: number): CpuBudget | null {
  if (!ledger || navigations === 0) return null
  const { gc, ...parts } = ledger
  const total = Object.values(parts).reduce((sum, p) => sum + p.ms, 0)
  const per = (x: number) => Math.round((x / navigations) * 1000) / 1000
  const rows = Object.entries(parts)
    .map(([part, p]) => ({ part, ms_per_navigation: per(p.ms), percent: total === 0 ? 0 : Math.round((p.ms / total) * 1000) / 10, per_navigation: Math.round((p.count / navigations) * 100) / 100 }))
    .sort((a, b) => b.ms_per_navigation - a.ms_per_navigation)
  return { navigations, total_ms_per_navigation: per(total), rows, gc_ms_per_navigation: per(gc?.ms ?? 0), gc_per_navigation: Math.round(((gc?.count ?? 0) / navigations) * 100) / 100 }
}

// A table for the console and the markdown report.
export function budgetLines(budget: CpuBudget | null): string[] {
  if (!budget) return ['(no CPU ledger: a server without CAMPFIRE_CPU_LEDGER, or without the loop probe)']
  return [
    '| part | ms CPU / navigation | share | events / navigation |',
    '|---|---:|---:|---:|',
    ...budget.rows.map((r) => `| ${r.part} | ${r.ms_per_navigation.toFixed(3)} | ${r.percent}% | ${r.per_navigation} |`),
    `| **all** | **${budget.total_ms_per_navigation.toFixed(3)}** | 100% | ${budget.navigations} navigations |`,
    `| of which GC pauses (inside the parts) | ${budget.gc_ms_per_navigation.toFixed(3)} | | ${budget.gc_per_navigation} |`,
  ]
}
