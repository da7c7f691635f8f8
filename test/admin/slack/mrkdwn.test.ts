import { test } from 'node:test'
import assert from 'node:assert/strict'
import { parseFragment, serializeOuter } from 'parse5'
import { sanitizeBody } from '../../../server/models/rich-text/index.ts'
import { mrkdwnToHtml, textStart, type MrkdwnLinks } from '../../../server/admin/slack/mrkdwn.ts'
import { emojiFor } from '../../../server/admin/slack/emoji.ts'

const links: MrkdwnLinks = {
  mention: (id) => (id === 'U1' ? '<action-text-attachment sgid="abc" content-type="application/vnd.campfire.mention"></action-text-attachment>' : null),
  channel: (id, label) => (id === 'C1' ? '<a href="/rooms/7">#general</a>' : `#${label ?? id}`),
}
const html = (text: string) => mrkdwnToHtml(text, links)

test('Slack formatting becomes the rich text the composer stores', () => {
  assert.equal(html('*bold* _italic_ ~strike~ `code`'), '<p><strong>bold</strong> <em>italic</em> <del>strike</del> <code>code</code></p>')
  assert.equal(html('```\nfunction a() { return 1 &lt; 2 }\n```'), '<pre>function a() { return 1 &lt; 2 }</pre>')
  assert.equal(html('&gt; quoted\n&gt; twice\nafter'), '<blockquote>quoted<br>twice</blockquote><p>after</p>')
  assert.equal(html('&gt;&gt;&gt; the rest\nis quoted'), '<blockquote>the rest<br>is quoted</blockquote>')
  assert.equal(html('• one\n• two\n1. first\n2. second'), '<ul><li>one</li><li>two</li></ul><ol><li>first</li><li>second</li></ol>')
  assert.equal(html('line one\nline two\n\nnext paragraph'), '<p>line one<br>line two</p><p>next paragraph</p>')
})

test('emphasis needs word boundaries, as in Slack, so names and arithmetic stay as written', () => {
  assert.equal(html('snake_case_name and 2*3*4 and a*b'), '<p>snake_case_name and 2*3*4 and a*b</p>')
  assert.equal(html('*bold around <@U1>*'), '<p><strong>bold around <action-text-attachment sgid="abc" content-type="application/vnd.campfire.mention"></action-text-attachment></strong></p>')
  assert.equal(html('`*not bold*`'), '<p><code>*not bold*</code></p>')
})

test('people, channels, links and special mentions become mentions, room links, anchors and text', () => {
  assert.match(html('hi <@U1>'), /^<p>hi <action-text-attachment sgid="abc"/)
  assert.equal(html('hi <@U9|someone>'), '<p>hi @someone</p>', 'a person the import does not know is their name as text')
  assert.equal(html('see <#C1|general>'), '<p>see <a href="/rooms/7">#general</a></p>')
  assert.equal(html('<https://example.com/a?b=1&amp;c=2|the docs> <mailto:a@example.com|mail> <https://x.test>'), '<p><a href="https://example.com/a?b=1&amp;c=2">the docs</a> <a href="mailto:a@example.com">mail</a> <a href="https://x.test">https://x.test</a></p>')
  assert.equal(html('<!here> <!channel> <!subteam^S1|@designers> <!date^1392734382^{date}|Feb 18, 2014>'), '<p>@here @channel @designers Feb 18, 2014</p>')
  assert.equal(html(':tada: :+1::skin-tone-3: :custom-thing:'), '<p>🎉 👍🏼 :custom-thing:</p>')
})

test('anything else in angle brackets, and every character HTML gives meaning to, stays text', () => {
  for (const hostile of ['<script>alert(1)</script>', '<img src=x onerror=alert(1)>', '<javascript:alert(1)|click>', '<data:text/html,<b>x</b>|y>', '" onmouseover="x', '&lt;b&gt;not bold&lt;/b&gt; &amp;amp;']) {
    const out = html(hostile)
    assert.equal(sanitizeBody(out), out, `${hostile} needs no sanitising`)
    const fragment = parseFragment(out)
    const elements = JSON.stringify(fragment.childNodes.map((node) => ('tagName' in node ? serializeOuter(node) : '')))
    assert.doesNotMatch(elements, /<(script|img|b)\b|href="(javascript|data):/, `${hostile} → ${out}`)
  }
  assert.equal(html('&lt;b&gt;not bold&lt;/b&gt;'), '<p>&lt;b&gt;not bold&lt;/b&gt;</p>')
})

test('a thread reply quotes the first words of its parent, without markup', () => {
  assert.equal(textStart('*Deploy* plan for <https://x.test|Friday> with <@U1|jz>'), 'Deploy plan for Friday with jz')
  assert.equal(textStart('word '.repeat(40), 20), 'word word word word…')
})

test("reactions' short names are Slack's emoji set, skin tones included", () => {
  assert.equal(emojiFor('+1'), '👍')
  assert.equal(emojiFor('thumbsup'), '👍')
  assert.equal(emojiFor('wave::skin-tone-5'), '👋🏾')
  assert.equal(emojiFor('white_check_mark'), '✅')
  assert.equal(emojiFor('party-parrot'), null)
})
