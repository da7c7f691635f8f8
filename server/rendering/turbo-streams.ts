import { escapeHtml } from './templates.ts'

export const TURBO_STREAM_TYPE = 'text/vnd.turbo-stream.html; charset=utf-8'

type Action = 'append' | 'prepend' | 'replace' | 'update' | 'before' | 'after'

// <turbo-stream action target><template>…</template></turbo-stream>, as turbo-rails writes it.
export function turboStream(action: Action, target: string, html: string, attributes: Record<string, string | true> = {}): string {
  const extra = Object.entries(attributes)
    .map(([name, value]) => (value === true ? ` ${name}` : ` ${name}="${escapeHtml(value)}"`))
    .join('')
  return `<turbo-stream action="${action}" target="${escapeHtml(target)}"${extra}><template>${html}</template></turbo-stream>`
}

export function turboStreamRemove(target: string): string {
  return `<turbo-stream action="remove" target="${escapeHtml(target)}"></turbo-stream>`
}
