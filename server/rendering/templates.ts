import { Eta } from 'eta'
import { projectPath } from '../lib/paths.ts'

export const VIEWS_DIR = projectPath('views')

// The indentation that starts each line of a template's own text is left out of what it renders:
// a tenth of a room page's bytes, repeated in every message, fragment cache, socket frame and
// gzip. The line break stays, so the page lays out as before (no template holds a <pre>; a
// <textarea> drops the break after its start tag anyway). Only the template's text changes, never
// its code or what it prints. Eta holds that text escaped for a JavaScript string: a line break
// is the two characters \n there.
const LEADING_INDENTATION = /\\n[ \t]+/g

const withoutIndentation = {
  processAST(buffer: Array<string | object>): Array<string | object> {
    return buffer.map((part) => (typeof part === 'string' ? part.replace(LEADING_INDENTATION, '\\n') : part))
  },
}

export function createTemplates(): Eta {
  return new Eta({ views: VIEWS_DIR, cache: true, autoEscape: true, autoTrim: false, defaultExtension: '.eta', plugins: [withoutIndentation] })
}

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]!)
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }
