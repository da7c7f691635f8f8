// Just enough typing for the libraries that ship none.
declare module '@rails/actioncable' {
  export interface Subscription {
    perform(action: string, data?: Record<string, unknown>): void
    unsubscribe(): void
    identifier: string
  }
  export interface Mixin {
    connected?(this: Subscription): void
    disconnected?(this: Subscription, data?: { willAttemptReconnect: boolean }): void
    rejected?(this: Subscription): void
    received?(this: Subscription, data: any): void
  }
  export interface Consumer {
    subscriptions: { create(params: Record<string, unknown>, mixin?: Mixin): Subscription }
    connect(): void
    disconnect(): void
  }
  export function createConsumer(url?: string): Consumer
}

declare module '@hotwired/turbo' {
  export function renderStreamMessage(html: string): void
  export function visit(location: string, options?: Record<string, unknown>): void
  export const session: { drive: boolean }
  export function setProgressBarDelay(ms: number): void
  export const StreamActions: Record<string, (this: Element) => void>
  export function setConfirmMethod(fn: (message: string) => Promise<boolean>): void
}

declare module 'highlight.js/lib/languages/*' {
  import type { LanguageFn } from 'highlight.js'
  const language: LanguageFn
  export default language
}

declare module '@37signals/lexxy' {
  export function configure(options: Record<string, unknown>): void
}

interface LexxyEditorElement extends HTMLElement {
  value: string
  // The Lexical editor inside, once the element has initialised.
  editor?: import('lexical').LexicalEditor
  toString(): string
  focus(): void
}
