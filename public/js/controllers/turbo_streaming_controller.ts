import { Controller } from '@hotwired/stimulus'

// The boost form's own response and the room's broadcast both append the new boost; dropping
// the container's id for the submitter's request avoids showing it twice.
export default class TurboStreamingController extends Controller<HTMLElement> {
  static targets = ['container']
  declare readonly containerTarget: HTMLElement
  declare readonly hasContainerTarget: boolean

  unsubscribe(): void {
    if (this.hasContainerTarget) this.containerTarget.removeAttribute('id')
  }
}
