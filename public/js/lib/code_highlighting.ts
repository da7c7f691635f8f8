import hljs from 'highlight.js/lib/core'
import bash from 'highlight.js/lib/languages/bash'
import css from 'highlight.js/lib/languages/css'
import diff from 'highlight.js/lib/languages/diff'
import go from 'highlight.js/lib/languages/go'
import java from 'highlight.js/lib/languages/java'
import javascript from 'highlight.js/lib/languages/javascript'
import json from 'highlight.js/lib/languages/json'
import python from 'highlight.js/lib/languages/python'
import ruby from 'highlight.js/lib/languages/ruby'
import rust from 'highlight.js/lib/languages/rust'
import sql from 'highlight.js/lib/languages/sql'
import xml from 'highlight.js/lib/languages/xml'

// Code blocks in messages are highlighted here, in the browser, as upstream does: the server's
// message HTML stays the same for every viewer, and only highlight.js core with upstream's twelve
// languages is bundled.
const LANGUAGES = { bash, css, diff, go, java, javascript, json, python, ruby, rust, sql, xml }
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language)
// Lexxy's picker offers TypeScript, which highlight.js's JavaScript grammar reads well enough.
hljs.registerAliases(['typescript', 'ts'], { languageName: 'javascript' })

// Lexxy's "Plain text" choice, and the names other editors give it.
const PLAIN = new Set(['plain', 'plaintext', 'text', 'txt'])

// Highlights every <pre> under root that holds only text (and the <br>s Lexxy puts between lines),
// each on its own turn of the event loop so a page of messages shows before its code is coloured.
// A block is highlighted once (data-highlighted); anything with other markup inside is left alone.
export function highlightCodeBlocks(root: ParentNode): void {
  for (const block of root.querySelectorAll<HTMLElement>('pre:not([data-highlighted])')) {
    setTimeout(() => highlightCodeBlock(block), 0)
  }
}

export function highlightCodeBlock(block: HTMLElement): void {
  if (block.dataset.highlighted || !block.isConnected) return
  const code = plainCode(block)
  if (code === null) return
  block.dataset.highlighted = 'true'
  const chosen = block.dataset.language?.toLowerCase()
  if (chosen && PLAIN.has(chosen)) return
  // The language the author picked in Lexxy, when it is one of ours; otherwise (a Trix-era message,
  // a bot's HTML, a language we don't bundle) highlight.js guesses among the twelve.
  const language = chosen && hljs.getLanguage(chosen) ? chosen : undefined
  const result = language ? hljs.highlight(code, { language, ignoreIllegals: true }) : hljs.highlightAuto(code)
  block.innerHTML = result.value
  block.classList.add('hljs')
  if (result.language) block.classList.add(`language-${result.language}`)
}

// The block's source: its text, with a newline for each <br>; null when it holds any other element.
function plainCode(block: HTMLElement): string | null {
  let code = ''
  for (const node of block.childNodes) {
    if (node.nodeType === Node.TEXT_NODE) code += node.textContent ?? ''
    else if (node.nodeName === 'BR') code += '\n'
    else if (node.nodeType !== Node.COMMENT_NODE) return null
  }
  return code
}
