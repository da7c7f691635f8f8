import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import { ALLOWED_TAGS, plainText, renderBody, sanitizeBody, type Attachment } from '../../../server/models/rich-text/index.ts'
import { attachmentContents, problemsIn } from './xss-checks.ts'

interface Payload { name: string; html: string }
const payloads = JSON.parse(readFileSync(new URL('../../fixtures/xss/payloads.json', import.meta.url), 'utf8')) as Payload[]

const CONTENT_TAGS = new Set([...ALLOWED_TAGS].filter((tag) => tag !== 'action-text-attachment').concat(['img', 'actiontext-opengraph-embed']))
const RENDERED_TAGS = new Set([...CONTENT_TAGS, 'span'])

// A renderer that trusts what the module hands it: it shows the attachment's own preview HTML.
const renderAttachment = (attachment: Attachment): string => `<span class="attachment">${attachment.content ?? ''}</span>`

describe('the XSS corpus', () => {
  test('the checks notice every kind of danger they look for', () => {
    const unsafe = ['<img src=x>', '<svg></svg>', '<b onclick=x>b</b>', '<b style="x">b</b>', '<a href="jav&amp;#x09;ascript:x">a</a>', '<a href=" DATA:text/html,x">a</a>', '<a href="vbscript:x">a</a>']
    for (const html of unsafe) assert.notDeepEqual(problemsIn(html, ALLOWED_TAGS), [], html)
    assert.deepEqual(problemsIn('<a href="https://example.com" class="x">a</a>', ALLOWED_TAGS), [])
  })

  test('has at least 60 payloads', () => {
    assert.ok(payloads.length >= 60, `${payloads.length} payloads`)
  })

  for (const { name, html } of payloads) {
    test(`${name}: nothing dangerous survives sanitizing or rendering`, () => {
      const sanitized = sanitizeBody(html)
      assert.deepEqual(problemsIn(sanitized, ALLOWED_TAGS), [], `sanitizeBody gave ${sanitized}`)
      for (const content of attachmentContents(sanitized)) assert.deepEqual(problemsIn(content, CONTENT_TAGS), [], `attachment content ${content}`)
      for (const body of [html, sanitized]) {
        const rendered = renderBody(body, { renderAttachment })
        assert.deepEqual(problemsIn(rendered, RENDERED_TAGS), [], `renderBody gave ${rendered}`)
      }
    })

    test(`${name}: sanitizing is idempotent and keeps the plain text`, () => {
      const once = sanitizeBody(html)
      assert.equal(sanitizeBody(once), once)
      assert.equal(plainText(once, () => 'Someone'), plainText(sanitizeBody(once), () => 'Someone'))
    })
  }
})
