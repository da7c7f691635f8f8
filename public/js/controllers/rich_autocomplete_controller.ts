import { Controller } from '@hotwired/stimulus'
import { unescapeText } from '../helpers/html.ts'

const MENTION = 'application/vnd.campfire.mention'

interface Person { name: string; value: number; avatar_url: string; sgid: string }

// @-mentions in a Lexxy editor: loads the room's people once and gives the editor a
// <lexxy-prompt trigger="@">, whose chosen item becomes a mention attachment.
export default class RichAutocompleteController extends Controller<HTMLElement> {
  static values = { url: String }
  declare readonly urlValue: string

  // Lexxy builds the suggestions list and draws each mention itself: the list gets a name, and a
  // mention's avatar an empty alt (the person's name follows it as text), whenever they appear.
  private readonly labeller = new MutationObserver(() => this.label())

  async connect(): Promise<void> {
    this.labeller.observe(this.element, { childList: true, subtree: true })
    this.label()
    if (this.element.querySelector('lexxy-prompt')) return
    const people = await this.load()
    if (people.length === 0 || !this.element.isConnected) return
    const prompt = document.createElement('lexxy-prompt')
    prompt.setAttribute('trigger', '@')
    prompt.setAttribute('name', 'mention')
    prompt.setAttribute('supports-space-in-searches', '')
    for (const person of people) prompt.append(promptItem(person))
    this.element.append(prompt)
  }

  disconnect(): void {
    this.labeller.disconnect()
  }

  private label(): void {
    for (const list of this.element.querySelectorAll('.lexxy-prompt-menu:not([aria-label])')) list.setAttribute('aria-label', 'People to mention')
    for (const img of this.element.querySelectorAll('img:not([alt])')) img.setAttribute('alt', '')
  }

  private async load(): Promise<Person[]> {
    try {
      const response = await fetch(this.urlValue, { headers: { accept: 'application/json' }, credentials: 'same-origin' })
      return response.ok ? ((await response.json()) as Person[]) : []
    } catch {
      return []
    }
  }
}

function promptItem(person: Person): HTMLElement {
  const name = unescapeText(person.name)
  const item = document.createElement('lexxy-prompt-item')
  item.setAttribute('search', name)
  item.setAttribute('sgid', person.sgid)
  const menu = document.createElement('template')
  menu.setAttribute('type', 'menu')
  menu.content.append(avatar(person.avatar_url), document.createTextNode(name))
  const editor = document.createElement('template')
  editor.setAttribute('type', 'editor')
  editor.setAttribute('content-type', MENTION)
  const mention = document.createElement('span')
  mention.className = 'mention'
  mention.append(avatar(person.avatar_url), document.createTextNode(name))
  editor.content.append(mention)
  item.append(menu, editor)
  return item
}

function avatar(src: string): HTMLImageElement {
  const img = document.createElement('img')
  img.src = src
  img.className = 'avatar'
  img.alt = ''
  img.width = 20
  img.height = 20
  return img
}
