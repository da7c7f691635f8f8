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

const application = Application.start()
for (const [name, controller] of Object.entries(controllers)) application.register(name, controller)

declare global {
  interface Window {
    Stimulus: Application
  }
}
window.Stimulus = application
