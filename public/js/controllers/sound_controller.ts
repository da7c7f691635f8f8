import { Controller } from '@hotwired/stimulus'
import { playSound } from '../models/sound_synth.ts'

// A /play message: plays its sound on click, or when it arrives live.
export default class SoundController extends Controller {
  static values = { name: String }
  declare readonly nameValue: string

  play(): void {
    try {
      playSound(this.nameValue)
    } catch {
      // No audio device, or the browser wants a gesture first: the picture still shows.
    }
  }
}
