import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { LRUCache } from 'lru-cache'
import { projectPath } from '../lib/paths.ts'
import type { CacheConfig } from '../config.ts'
import type { Models } from '../models/index.ts'
import type { MessageRow } from '../models/message.ts'
import type { MessageDisplay } from '../models/message/display.ts'
import type { RoomRow } from '../models/room.ts'
import type { CacheStats } from './cache-stats.ts'
import { compacted, heapBytes } from './flat-string.ts'
import type { MessageRenderer } from './messages.ts'

// Everything a message fragment is made from: a change to any of these files changes every key.
const FRAGMENT_SOURCES = [
  'views/messages/_message.eta',
  'views/messages/_actions.eta',
  'views/messages/_presentation.eta',
  'views/messages/boosts/_boosts.eta',
  'views/messages/boosts/_boost.eta',
  'views/users/_avatar.eta',
  'server/rendering/messages.ts',
  'server/rendering/helpers/opengraph.ts',
]

// A compiled deployment may lack the TypeScript sources; the views are always there.
function sourceOf(file: string): string {
  try {
    return readFileSync(projectPath(file), 'utf8')
  } catch {
    return file
  }
}

export const FRAGMENT_TEMPLATE_VERSION = createHash('sha1').update(FRAGMENT_SOURCES.map(sourceOf).join('\0')).digest('hex').slice(0, 10)

export interface FragmentContext {
  origin: string
  viewerId: number
  stats: CacheStats
  rooms?: RoomRow[]
}

// Shared message fragments: one rendering of a message serves every viewer. The key is the
// message id, its presentation_version (read with the page's own rows), the template version and
// the origin (permalinks are absolute); the viewer is not in it. Only the misses load their
// bodies, people, boosts and attachments. The `viewer`, `off` and `content` settings are the
// baselines the experiments compare against.
export function createMessageFragments(renderer: MessageRenderer, config: CacheConfig) {
  const cache =
    config.fragmentKeys === 'off'
      ? null
      : new LRUCache<string, string>({ maxSize: config.fragmentCacheBytes, sizeCalculation: (html, key) => heapBytes(html) + key.length + 64 })

  function suffix(context: FragmentContext): string {
    return `${FRAGMENT_TEMPLATE_VERSION}:${context.origin}${config.fragmentKeys === 'viewer' ? `:viewer=${context.viewerId}` : ''}`
  }

  function contentKey(message: MessageDisplay, context: FragmentContext): string {
    // Everything the fragment shows; the room row itself is left out (its updated_at moves with
    // every post, and the fragment shows only the room's name).
    const digest = createHash('sha1').update(JSON.stringify({ ...message, room: null })).digest('base64url')
    return `m${message.id}:h${digest}:${suffix(context)}`
  }

  function versionKeys(models: Models, rows: MessageRow[], context: FragmentContext): string[] {
    const missing = rows.filter((row) => row.presentation_version === undefined).map((row) => row.id)
    const read = models.cacheVersions.presentationVersions(missing)
    return rows.map((row) => `m${row.id}:v${row.presentation_version ?? read.get(row.id) ?? 'none'}:${suffix(context)}`)
  }

  function renderUncached(models: Models, rows: MessageRow[], context: FragmentContext): string[] {
    context.stats.recordMisses += rows.length
    context.stats.fragmentMisses += rows.length
    return models.messageDisplay.load(rows, context.rooms).map((message) => renderer.render(message, context.origin))
  }

  function renderByContent(models: Models, rows: MessageRow[], context: FragmentContext, store: LRUCache<string, string>): string[] {
    const messages = models.messageDisplay.load(rows, context.rooms)
    context.stats.recordMisses += messages.length
    return messages.map((message) => {
      const key = contentKey(message, context)
      let html = store.get(key)
      if (html === undefined) {
        context.stats.fragmentMisses++
        html = compacted(renderer.render(message, context.origin))
        store.set(key, html)
      } else {
        context.stats.fragmentHits++
      }
      return html
    })
  }

  function renderByVersion(models: Models, rows: MessageRow[], context: FragmentContext, store: LRUCache<string, string>): string[] {
    const keys = versionKeys(models, rows, context)
    const htmls = keys.map((key) => store.get(key))
    const misses = rows.filter((_, i) => htmls[i] === undefined)
    context.stats.fragmentHits += rows.length - misses.length
    context.stats.recordHits += rows.length - misses.length
    if (misses.length > 0) {
      context.stats.fragmentMisses += misses.length
      context.stats.recordMisses += misses.length
      const rendered = new Map(models.messageDisplay.load(misses, context.rooms).map((m) => [m.id, compacted(renderer.render(m, context.origin))]))
      rows.forEach((row, i) => {
        if (htmls[i] !== undefined) return
        const html = rendered.get(row.id)!
        htmls[i] = html
        if (!keys[i]!.includes(':vnone:')) store.set(keys[i]!, html)
      })
    }
    return htmls as string[]
  }

  // Renders rows read in the current read transaction (call inside store.read).
  function renderEach(models: Models, rows: MessageRow[], context: FragmentContext): string[] {
    if (rows.length === 0) return []
    if (!cache) return renderUncached(models, rows, context)
    return config.fragmentKeySource === 'content' ? renderByContent(models, rows, context, cache) : renderByVersion(models, rows, context, cache)
  }

  return {
    renderEach,
    renderAll: (models: Models, rows: MessageRow[], context: FragmentContext): string => renderEach(models, rows, context).join(''),
    get size(): { entries: number; bytes: number } {
      return { entries: cache?.size ?? 0, bytes: cache?.calculatedSize ?? 0 }
    },
    clear: () => cache?.clear(),
  }
}

export type MessageFragments = ReturnType<typeof createMessageFragments>
