import * as Turbo from '@hotwired/turbo'
import { Application } from '@hotwired/stimulus'
import { configure as configureLexxy } from '@37signals/lexxy'
import { CableStreamSourceElement } from './lib/cable_stream_source.ts'
import { defineSuggestionElements } from './lib/suggestion_elements.ts'
import { controllers } from './controllers/index.ts'

// The Campfire client: Turbo Drive, Frames and Streams (live over Action Cable), the Lexxy
// editor, and one Stimulus controller per behaviour.
configureLexxy({
  default: {
    attachments: true,
    permittedAttachmentTypes: ['application/vnd.campfire.mention', 'application/vnd.actiontext.opengraph-embed'],
    toolbar: { upload: false },
  },
})

defineSuggestionElements()
if (!customElements.get('turbo-cable-stream-source')) customElements.define('turbo-cable-stream-source', CableStreamSourceElement)

Turbo.setConfirmMethod((message: string) => Promise.resolve(window.confirm(message)))

// A request the page gave up on (Turbo cancels a frame's or a prefetch's fetch when what asked
// for it goes away) is not an error: Turbo 8 leaves some of those cancellations as unhandled
// rejections ("signal is aborted without reason"), which would reach the console as failures.
window.addEventListener('unhandledrejection', (event) => {
  if (event.reason instanceof DOMException && event.reason.name === 'AbortError') event.preventDefault()
})

const application = Application.start()
for (const [name, controller] of Object.entries(controllers)) application.register(name, controller)

declare global {
  interface Window {
    Stimulus: Application
  }
}
window.Stimulus = application
