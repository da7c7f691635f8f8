import { after, before } from 'node:test'
import type { Browser } from 'playwright-core'
import { launchBrowser, openTab, signIn, type Tab } from './browser.ts'
import { startCampfire, type Campfire } from './campfire.ts'

export interface SignedIn {
  campfire: Campfire
  browser: Browser
  // One tab per email, in order, each signed in.
  tabs: Tab[]
}

// For a describe block: a Campfire on the default seed, one Chromium and a signed-in tab for
// each email, made before its tests and torn down after them. Its fields are there once the
// block's own `before` hooks run (they run after this one).
export function signedInTabs(emails: string[]): SignedIn {
  const world = { tabs: [] as Tab[] } as SignedIn
  const cleanups: (() => Promise<void> | void)[] = []
  before(async () => {
    const t = { after: (fn: () => Promise<void> | void) => void cleanups.push(fn) }
    world.campfire = await startCampfire(t)
    world.browser = await launchBrowser(t)
    for (const email of emails) {
      const tab = await openTab(world.browser, world.campfire.baseUrl)
      await signIn(tab, email)
      world.tabs.push(tab)
    }
  })
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })
  return world
}
