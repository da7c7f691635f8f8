import { Eta } from 'eta'
import { projectPath } from '../lib/paths.ts'

export const VIEWS_DIR = projectPath('views')

export function createTemplates(): Eta {
  return new Eta({ views: VIEWS_DIR, cache: true, autoEscape: true, autoTrim: false, defaultExtension: '.eta' })
}

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]!)
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }
