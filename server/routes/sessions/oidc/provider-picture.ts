import { Readable } from 'node:stream'
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import { fetchImage, IMAGE_MAX_BYTES } from '../../../lib/image-fetch.ts'
import type { GuardPolicy } from '../../../lib/private-network-guard.ts'
import { storeUpload } from '../../../lib/uploads.ts'
import type { Models } from '../../../models/index.ts'
import { STATUSES } from '../../../models/user.ts'
import { prepareAvatar } from '../../users/avatar-upload.ts'
import { removeBlobFiles, removeFiles } from '../../../lib/files.ts'

// The provider's `picture` claim as a person's avatar, taken when their identity is linked (a
// newcomer joining, or someone here signing in through the provider for the first time) and
// only when they have no avatar. Later sign-ins leave the avatar alone: a person may have removed
// it on purpose.
//
// It runs after the sign-in has answered (adoptLater), so a slow or refused picture never holds
// anyone up: the picture is fetched through the SSRF guard (lib/image-fetch.ts: public addresses
// only, 5 s, 2 MB, JPEG/PNG/GIF/WebP), then checked and squared by sharp as an uploaded avatar
// is. Whatever goes wrong costs one log line and the person keeps their initials.
export function providerPictures(app: FastifyInstance, filesPath: string, policy: GuardPolicy) {
  const running = new Map<number, Promise<void>>()
  app.addHook('onClose', async () => {
    await Promise.allSettled(running.values())
  })

  async function adopt(userId: number, pictureUrl: string, log: FastifyBaseLogger): Promise<void> {
    const wanted = (m: Models) => m.users.find(userId)?.status === STATUSES.active && m.avatars.originalFor(userId) === undefined
    let paths: string[] = []
    try {
      if (!app.store.read(wanted)) return
      const image = await fetchImage(pictureUrl, policy)
      const upload = await storeUpload(filesPath, Readable.from([image.body]), image.contentType, IMAGE_MAX_BYTES)
      paths = [upload.path]
      const avatar = await prepareAvatar(filesPath, upload, `avatar.${EXTENSIONS[image.contentType] ?? 'img'}`)
      paths = avatar.paths
      // Only if the person still has none: they may have uploaded one in the meantime.
      const stale = await app.store.write((m) => (wanted(m) ? m.avatars.attach(userId, avatar.original, avatar.square) : null))
      if (stale === null) await removeFiles(paths)
      else await removeBlobFiles(filesPath, stale)
      log.info({ userId }, 'single sign-on picture taken as avatar')
    } catch (error) {
      await removeFiles(paths).catch(() => {})
      log.warn({ userId, picture: originOf(pictureUrl), reason: (error as Error).message }, 'single sign-on picture not used')
    }
  }

  return {
    adoptLater(userId: number, pictureUrl: string, log: FastifyBaseLogger): void {
      if (running.has(userId)) return
      const work = adopt(userId, pictureUrl, log).finally(() => running.delete(userId))
      running.set(userId, work)
    },
  }
}

const EXTENSIONS: Record<string, string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/gif': 'gif', 'image/webp': 'webp' }

// Only the origin is logged: a picture URL can carry a signature or a token.
function originOf(raw: string): string {
  try {
    return new URL(raw).origin
  } catch {
    return '(not a URL)'
  }
}
