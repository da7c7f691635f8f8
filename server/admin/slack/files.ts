import { basename } from 'node:path'
import { storeUpload, type StoredUpload } from '../../lib/uploads.ts'
import { prepareAttachment, removePrepared, type PreparedAttachment } from '../../routes/messages/attachment-processing.ts'
import { prepareAvatar } from '../../routes/users/avatar-upload.ts'
import { removeFiles } from '../../lib/files.ts'
import type { ImportContext } from './context.ts'
import { text } from './export-index.ts'
import { UnsafeExport } from './export-source.ts'

// A file a message shared, as the export describes it.
export interface SlackFile {
  id: string
  name: string
  contentType: string | undefined
}

export function slackFiles(value: unknown): SlackFile[] {
  if (!Array.isArray(value)) return []
  return value.flatMap((raw): SlackFile[] => {
    if (typeof raw !== 'object' || raw === null) return []
    const file = raw as Record<string, unknown>
    const id = typeof file.id === 'string' && /^[A-Z0-9]{2,40}$/.test(file.id) ? file.id : null
    if (!id) return []
    const name = text(typeof file.name === 'string' ? basename(file.name.replaceAll('\\', '/')) : null) ?? text(file.title) ?? id
    return [{ id, name, contentType: typeof file.mimetype === 'string' ? file.mimetype : undefined }]
  })
}

// Where an export keeps a file it includes: Slack's own layout (__uploads/<id>/<name>) or the
// per-conversation one some export tools write (<conversation>/attachments/<id>-<name>).
export function findFile(context: ImportContext, folder: string, file: SlackFile): string | null {
  const candidates = [`${context.root}__uploads/${file.id}/${file.name}`, `${context.root}${folder}/attachments/${file.id}-${file.name}`]
  return candidates.find((path) => context.source.paths.has(path)) ?? null
}

async function store(context: ImportContext, path: string, contentType: string | undefined): Promise<StoredUpload | null> {
  if (context.source.size(path) > context.maxUploadBytes) {
    context.report.refuse(`${path}: larger than the largest upload (CAMPFIRE_MAX_UPLOAD_MB)`)
    return null
  }
  try {
    return await storeUpload(context.filesPath, await context.source.open(path), contentType, context.maxUploadBytes)
  } catch (error) {
    if (error instanceof UnsafeExport) throw error
    context.report.refuse(`${path}: ${(error as Error).message}`)
    return null
  }
}

// A shared file stored as an upload is, with its thumbnail (or a video's poster) made now; null
// when it could not be read. The caller writes the message and removes the files if that fails.
export async function prepareFile(context: ImportContext, path: string, file: SlackFile): Promise<PreparedAttachment | null> {
  const upload = await store(context, path, file.contentType)
  return upload && prepareAttachment(context.services, context.filesPath, upload, file.name)
}

export { removePrepared }

// An avatar an export tool saved beside the export (__avatars/<user id>/<file>); Slack's own
// exports carry only the picture's address, which is not fetched.
export async function importAvatar(context: ImportContext, slackId: string, userId: number): Promise<void> {
  if (context.dryRun) return
  const prefix = `${context.root}__avatars/${slackId}/`
  const [path] = context.filesIn(prefix)
  if (!path) return
  const upload = await store(context, path, undefined)
  if (!upload) return
  try {
    const avatar = await prepareAvatar(context.filesPath, upload, basename(path))
    await context.write((m) => m.avatars.attach(userId, avatar.original, avatar.square), []).catch(async (error: unknown) => {
      await removeFiles(avatar.paths)
      throw error
    })
    context.report.count('avatars')
  } catch (error) {
    context.report.refuse(`${path}: ${(error as Error).message}`)
  }
}
