// What an import did (or, with --dry-run, would do), counted as it goes and printed at the end
// as one table, with every refusal and skip named.
export class ImportReport {
  readonly counts = new Map<string, number>()
  readonly refused: string[] = []
  readonly skipped = new Map<string, number>()
  readonly archived: string[] = []
  readonly renamed: string[] = []

  count(what: string, by = 1): void {
    this.counts.set(what, (this.counts.get(what) ?? 0) + by)
  }

  get(what: string): number {
    return this.counts.get(what) ?? 0
  }

  skip(reason: string): void {
    this.skipped.set(reason, (this.skipped.get(reason) ?? 0) + 1)
  }

  refuse(what: string): void {
    if (this.refused.length < 1000) this.refused.push(what)
    this.count('refused')
  }

  summary(dryRun: boolean): string {
    const verb = dryRun ? 'would be ' : ''
    const rows: [string, string][] = [
      ['people matched by email', String(this.get('people matched'))],
      ['people matched by email, deactivated or banned (left so)', String(this.get('people matched not active'))],
      [`people ${verb}created`, `${this.get('people created')} (${this.get('people created deactivated')} deactivated)`],
      [`bots ${verb}created`, String(this.get('bots created'))],
      ['people already imported', String(this.get('people already imported'))],
      [`rooms ${verb}created`, `${this.get('open rooms')} open, ${this.get('closed rooms')} closed, ${this.get('pings')} Pings`],
      ['rooms already imported', String(this.get('rooms already imported'))],
      [`messages ${verb}imported`, String(this.get('messages'))],
      ['messages already imported', String(this.get('messages already imported'))],
      [`boosts ${verb}added`, String(this.get('boosts'))],
      [`files ${verb}attached`, String(this.get('files'))],
      ['files not in the export', String(this.get('files missing'))],
      ['texts cut to the longest message', String(this.get('truncated'))],
      ['messages with nothing that could be imported', String(this.get('nothing to import'))],
    ]
    for (const [reason, count] of [...this.skipped].sort()) rows.push([`skipped: ${reason}`, String(count)])
    const width = Math.max(...rows.map(([label]) => label.length))
    const lines = [dryRun ? 'Slack import (dry run: nothing was written)' : 'Slack import', ...rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`)]
    if (this.archived.length > 0) lines.push(`Archived channels imported: ${this.archived.join(', ')}`)
    if (this.renamed.length > 0) lines.push(`Renamed (the name was taken): ${this.renamed.join(', ')}`)
    if (this.refused.length > 0) lines.push(`Refused or sanitised (${this.get('refused')}):`, ...this.refused.map((line) => `  ${line}`))
    return lines.join('\n') + '\n'
  }
}
