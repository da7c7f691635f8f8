import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { MENTION_CONTENT_TYPE, sanitizeBody } from '../../../server/models/rich-text/index.ts'
import { DAVID_SGID, lexxyBodyWithEmbed, mentionOf, rubyConf, trixBodyWithEmbed } from './bodies.ts'

describe('sanitizeBody', () => {
  test('a plain text body is stored byte for byte', () => {
    assert.equal(sanitizeBody('bench write 1a2b'), 'bench write 1a2b')
    assert.equal(sanitizeBody('😄🤘'), '😄🤘')
    assert.equal(sanitizeBody('/play tada'), '/play tada')
  })

  test('surrounding whitespace is stripped, as Action Text strips the body before parsing it', () => {
    assert.equal(sanitizeBody('  \n hello there \n'), 'hello there')
    assert.equal(sanitizeBody('   '), '')
  })

  test('text is escaped the way an HTML serialiser writes it', () => {
    assert.equal(sanitizeBody('fish & chips < 5 > 3'), 'fish &amp; chips &lt; 5 &gt; 3')
    assert.equal(sanitizeBody('a\u00a0b'), 'a&nbsp;b')
    assert.equal(sanitizeBody('a &amp; b'), 'a &amp; b')
  })

  test('the formatting the composer produces is kept as it is', () => {
    const body = '<div><a href="https://example.com">example</a> <strong>bold</strong> <em>it</em> <code>code</code><ul><li>one</li><li>two</li></ul></div>' +
      '<blockquote>quoted</blockquote><pre>def x\n  1\nend</pre><h1>Title</h1><p>para<br>graph</p><del>old</del><ins>new</ins>'
    assert.equal(sanitizeBody(body), body)
  })

  test('a Lexxy code block keeps the language picked for it, and only a language name', () => {
    assert.equal(sanitizeBody('<pre data-language="ruby" data-highlight-language="ruby" spellcheck="false">def x<br>end</pre>'), '<pre data-language="ruby">def x<br>end</pre>')
    assert.equal(sanitizeBody('<pre data-language="c++">int x;</pre>'), '<pre data-language="c++">int x;</pre>')
    assert.equal(sanitizeBody('<pre data-language="x&quot; onclick=&quot;alert(1)">a</pre>'), '<pre>a</pre>')
    assert.equal(sanitizeBody('<p data-language="ruby">not code</p>'), '<p>not code</p>')
  })

  test('a mention attachment is stored as Action Text stores it', () => {
    const mention = mentionOf(DAVID_SGID, 'David')
    const stored = sanitizeBody(`<div>Hey ${mention}</div>`)
    assert.match(stored, new RegExp(`^<div>Hey <action-text-attachment sgid="${DAVID_SGID}" content-type="${MENTION_CONTENT_TYPE}" content="&lt;div class=&quot;mention&quot;`))
    assert.equal(sanitizeBody(stored), stored)
  })

  test('unfurled link attachments from Trix and Lexxy keep their attributes', () => {
    for (const body of [trixBodyWithEmbed(rubyConf.href, rubyConf), lexxyBodyWithEmbed(rubyConf.href, rubyConf)]) {
      const stored = sanitizeBody(body)
      assert.match(stored, /content-type="application\/vnd\.actiontext\.opengraph-embed"/)
      assert.match(stored, /content="/)
      assert.equal(sanitizeBody(stored), stored)
    }
  })

  test('an attachment loses whatever HTML was inside it', () => {
    assert.equal(
      sanitizeBody('<action-text-attachment sgid="abc"><figure><img src="x"></figure>preview</action-text-attachment>'),
      '<action-text-attachment sgid="abc"></action-text-attachment>',
    )
  })

  test('a Trix figure attachment is converted into an action-text-attachment', () => {
    const trix = '<figure data-trix-attachment="{&quot;sgid&quot;:&quot;abc&quot;,&quot;contentType&quot;:&quot;application/vnd.campfire.mention&quot;,&quot;content&quot;:&quot;<span class=\\&quot;mention\\&quot;>David</span>&quot;}" ' +
      'data-trix-content-type="application/vnd.campfire.mention" class="attachment attachment--content"><span class="mention">David</span><figcaption class="attachment__caption"></figcaption></figure>'
    assert.equal(
      sanitizeBody(`Hey ${trix}`),
      'Hey <action-text-attachment sgid="abc" content-type="application/vnd.campfire.mention" content="&lt;span class=&quot;mention&quot;&gt;David&lt;/span&gt;"></action-text-attachment>',
    )
  })

  test('a Trix attachment without readable details disappears', () => {
    assert.equal(sanitizeBody('a<figure data-trix-attachment="not json">b</figure>c'), 'ac')
  })

  test('scripts, styles and embedded documents are removed with their content', () => {
    assert.equal(sanitizeBody('a<script>alert(1)</script>b<style>p{}</style>c<iframe src="x">d</iframe>e'), 'abce')
    assert.equal(sanitizeBody('a<object data="x"><p>fallback</p></object>b'), 'ab')
  })

  test('harmless unknown inline elements are unwrapped so their words survive', () => {
    assert.equal(sanitizeBody('<p>Hello <u>under</u> <s>struck</s> <font color="red">red</font></p>'), '<p>Hello under struck red</p>')
  })

  test('tables and sections keep their text in blocks', () => {
    assert.equal(sanitizeBody('<table><tr><th>a</th><td>b</td></tr></table>'), '<div><div><div>a</div><div>b</div></div></div>')
    assert.equal(sanitizeBody('<section class="x"><p>hi</p></section>'), '<div class="x"><p>hi</p></div>')
  })

  test('only safe attributes are kept', () => {
    assert.equal(
      sanitizeBody('<p class="x" style="color:red" onclick="x()" id="y" data-a="b" title="t">z</p>'),
      '<p class="x" title="t">z</p>',
    )
    assert.equal(sanitizeBody('<time datetime="2026-01-01" lang="en">then</time>'), '<time datetime="2026-01-01" lang="en">then</time>')
  })

  test('links keep http, https, mailto and relative hrefs and lose every other scheme', () => {
    for (const href of ['https://example.com', 'http://example.com/a?b=1&amp;c=2', 'mailto:a@example.com', '/rooms/1', '#top', '?q=1', '//cdn.example.com/x']) {
      assert.equal(sanitizeBody(`<a href="${href}">x</a>`), `<a href="${href}">x</a>`)
    }
    for (const href of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', ' javascript:alert(1)', 'jav&#x09;ascript:alert(1)', 'data:text/html,x', 'vbscript:msgbox(1)', 'ftp://example.com', 'java\nscript:x', '&#106;avascript:alert(1)']) {
      assert.equal(sanitizeBody(`<a href="${href}">x</a>`), '<a>x</a>', href)
    }
  })

  test('comments and CDATA sections are dropped', () => {
    assert.equal(sanitizeBody('a<!-- hidden -->b<![CDATA[ c ]]>d'), 'abd')
  })

  test('sanitizing twice changes nothing', () => {
    for (const body of ['<h1><u><h2>x</h2></u></h1>', '<pre><u>\nx</u></pre>', '<p>a<table><tr><td>b</td></tr></table>c</p>', '<script>x</script> lead', '<a href=1>a<div>b<a href=2>c</a></div></a>']) {
      const once = sanitizeBody(body)
      assert.equal(sanitizeBody(once), once, body)
    }
  })
})
