import { Eta } from 'eta'
import { fileURLToPath } from 'node:url'

export const VIEWS_DIR = fileURLToPath(new URL('../../views', import.meta.url))

export function createTemplates(): Eta {
  return new Eta({ views: VIEWS_DIR, cache: true, autoEscape: true, autoTrim: false, defaultExtension: '.eta' })
}

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]!)
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }
