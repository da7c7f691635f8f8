// The screenshots the web manifest lists (an install dialog shows them), committed under
// public/images/screenshots/ and made from our own pages by server/build/pwa-screenshots.ts
// (npm run build:screenshots), at these sizes: the viewport in CSS pixels times the scale.
export interface PwaScreenshot {
  file: string
  // What the page shows, for the build script: a room, light or dark, at phone or desktop width.
  colorScheme: 'light' | 'dark'
  viewport: { width: number; height: number }
  scale: number
  formFactor: 'narrow' | 'wide'
  label: string
}

export const PWA_SCREENSHOTS: readonly PwaScreenshot[] = [
  { file: 'room-phone.png', colorScheme: 'light', viewport: { width: 390, height: 844 }, scale: 2, formFactor: 'narrow', label: 'Chat in rooms with your whole team, on your own server.' },
  { file: 'room-phone-dark.png', colorScheme: 'dark', viewport: { width: 390, height: 844 }, scale: 2, formFactor: 'narrow', label: 'Dark mode follows your device.' },
  { file: 'room-desktop.png', colorScheme: 'light', viewport: { width: 1280, height: 800 }, scale: 1, formFactor: 'wide', label: 'Rooms, pings and @mentions, side by side on a desktop.' },
]

export function screenshotSize(shot: PwaScreenshot): { width: number; height: number } {
  return { width: shot.viewport.width * shot.scale, height: shot.viewport.height * shot.scale }
}
