import { Controller } from '@hotwired/stimulus'

// Accepts files dragged onto the room and hands them to the composer.
export default class DropTargetController extends Controller {
  dragenter(event: DragEvent): void {
    if (hasFiles(event)) event.preventDefault()
  }

  dragover(event: DragEvent): void {
    if (hasFiles(event)) event.preventDefault()
  }

  drop(event: DragEvent): void {
    if (!hasFiles(event)) return
    event.preventDefault()
    this.dispatch('drop', { target: window, detail: { files: [...event.dataTransfer!.files] } })
  }
}

function hasFiles(event: DragEvent): boolean {
  return !!event.dataTransfer && [...event.dataTransfer.types].includes('Files')
}
