import assert from 'node:assert/strict'
import { test } from 'node:test'
import { attachmentsIn, NestingTooDeep, plainText, renderBody, sanitizeBody } from '../../../server/models/rich-text/index.ts'
import { MAX_NESTING } from '../../../server/models/rich-text/html.ts'

const deep = (depth: number, tag = 'div', inner = 'x') => `${`<${tag}>`.repeat(depth)}${inner}${`</${tag}>`.repeat(depth)}`
const render = (html: string) => renderBody(html, { renderAttachment: () => null })

test('a body nested up to the limit is sanitised as ever, and stays stable', () => {
  const html = deep(MAX_NESTING - 1)
  const once = sanitizeBody(html)
  assert.equal(once, html)
  assert.equal(sanitizeBody(once), once)
})

test('a body nested deeper than the limit is refused with NestingTooDeep, not a stack overflow', () => {
  for (const html of [deep(MAX_NESTING + 1), deep(5000), '<b>'.repeat(20_000), `<ul>${'<li><ul>'.repeat(3000)}`]) {
    assert.throws(() => sanitizeBody(html), NestingTooDeep, `${html.slice(0, 20)}… (${html.length})`)
  }
})

test('stored HTML nested too deeply (written by another process) renders flattened: its text kept, no stack overflow', () => {
  for (const html of [deep(5000), '<b>'.repeat(20_000) + 'x', deep(3000, 'blockquote')]) {
    const rendered = render(html)
    assert.match(rendered, /x/, 'the text is still there')
    assert.equal(plainText(html, () => null).trim().replace(/[“”\s]/g, ''), 'x')
    assert.deepEqual(attachmentsIn(html), [])
  }
})

test('an attachment whose content is nested too deeply has its content flattened, not a stack overflow', () => {
  const content = JSON.stringify(deep(5000, 'span', 'card'))
  const html = `<action-text-attachment content-type="text/html" content="${content.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"></action-text-attachment>`
  const sanitized = sanitizeBody(html)
  assert.match(sanitized, /card/)
  assert.match(render(sanitized), /trix-content/)
})
