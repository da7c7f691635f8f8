import { AxeBuilder } from '@axe-core/playwright'
import type { Page } from 'playwright-core'

export interface Finding {
  state: string
  scheme: 'light' | 'dark'
  rule: string
  impact: string
  help: string
  targets: string[]
}

// Runs axe-core on the page as it stands: every rule but the experimental ones in light colours,
// then the colour-contrast rule again in dark ones (the only rule the scheme can change). Returns
// what it found, each named by the state it was found in. Only violations are collected in full,
// which keeps a run on a busy room to a second or two.
export async function audit(page: Page, state: string): Promise<Finding[]> {
  const findings: Finding[] = []
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme })
    // Lazy frames (the sidebar) load and mark the current room after the page; colours change
    // with a transition on buttons: measure them once all of that has settled.
    await page.waitForFunction(`!document.querySelector('turbo-frame[busy], [aria-busy="true"]')`)
    await page.waitForTimeout(150)
    // Scroll-driven animations (the Ping strip's fade) run for as long as the page is open.
    await page.waitForFunction("document.getAnimations().every((a) => a.playState !== 'running' || a.effect?.getTiming().iterations === Infinity || !(a.timeline instanceof DocumentTimeline))")
    const builder = new AxeBuilder({ page }).options({ resultTypes: ['violations'] })
    const results = await (scheme === 'dark' ? builder.withRules('color-contrast') : builder).analyze()
    for (const violation of results.violations) {
      findings.push({
        state,
        scheme,
        rule: violation.id,
        impact: violation.impact ?? 'unknown',
        help: violation.help,
        targets: violation.nodes.map((node) => node.target.join(' ')).slice(0, 5),
      })
    }
  }
  await page.emulateMedia({ colorScheme: 'light' })
  return findings
}

export function describeFindings(findings: Finding[]): string {
  return findings.map((f) => `${f.impact} ${f.rule} on ${f.state} (${f.scheme}): ${f.help}\n    ${f.targets.join('\n    ')}`).join('\n')
}
