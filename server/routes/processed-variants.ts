import { rm } from 'node:fs/promises'
import type { FastifyInstance } from 'fastify'
import { LRUCache } from 'lru-cache'
import { ImageError } from '../lib/images.ts'
import { writeVariant, type VariantFile } from '../lib/variant-files.ts'
import type { VariantBlob } from '../models/blob/variants.ts'
import { isVariable, type Variation } from '../models/blob/variations.ts'
import { blobPath } from '../lib/files.ts'
import type { OriginalBlob } from '../models/blob/attached-one.ts'

export { isVariable }

// Records a variant whose file is already written (VariantWithRecord#process's create_or_find):
// its record, blob and 'image' attachment in one transaction. The file is removed again when the
// write fails (which is rethrown) or another writer recorded the same variant first; either way
// no blob row or file is left without the other.
export async function recordVariant(app: FastifyInstance, originalId: number, variation: Variation, file: VariantFile): Promise<VariantBlob | null> {
  const { path, ...blob } = file
  const recorded = await app.store.write((m) => m.blobVariants.record(originalId, variation.digest, blob)).catch(async (error: unknown) => {
    await rm(path, { force: true })
    throw error
  })
  if (!recorded) await rm(path, { force: true })
  return app.store.read((m) => m.blobVariants.find(originalId, variation.digest)) ?? null
}

export type ProcessedVariants = (original: OriginalBlob, variation: Variation) => Promise<VariantBlob | null>

// One per app and files folder, shared by every route that shows variants (avatars, logos,
// message thumbnails, video posters), so two requests for the same variant make it once.
const processors = new WeakMap<FastifyInstance, Map<string, ProcessedVariants>>()

// variant(...).processed: the variant's blob, made now when it has no record yet (a database
// Rails wrote may have originals without variants). A second request for the same variant
// while one is being made waits for it; an original that cannot be processed is remembered, so
// it is not decoded again on every request.
export function processedVariants(app: FastifyInstance, filesRoot: string): ProcessedVariants {
  let byRoot = processors.get(app)
  if (!byRoot) processors.set(app, (byRoot = new Map()))
  let processed = byRoot.get(filesRoot)
  if (!processed) byRoot.set(filesRoot, (processed = variantProcessor(app, filesRoot)))
  return processed
}

function variantProcessor(app: FastifyInstance, filesRoot: string): ProcessedVariants {
  const making = new Map<string, Promise<VariantBlob | null>>()
  const unprocessable = new LRUCache<string, true>({ max: 1000 })

  async function make(original: OriginalBlob, variation: Variation): Promise<VariantBlob | null> {
    const source = blobPath(filesRoot, original.key)
    if (!source) return null
    let file
    try {
      file = await writeVariant(filesRoot, source, original.filename, variation)
    } catch (error) {
      const missing = (error as { code?: string }).code === 'ENOENT'
      if (!(error instanceof ImageError) && !missing) throw error
      unprocessable.set(`${original.key}:${variation.digest}`, true)
      return null
    }
    return recordVariant(app, original.id, variation, file)
  }

  return async function processed(original: OriginalBlob, variation: Variation): Promise<VariantBlob | null> {
    if (!isVariable(original.content_type)) return null
    const found = app.store.read((m) => m.blobVariants.find(original.id, variation.digest))
    if (found) return found
    const id = `${original.key}:${variation.digest}`
    if (unprocessable.has(id)) return null
    let pending = making.get(id)
    if (!pending) {
      pending = make(original, variation).finally(() => making.delete(id))
      making.set(id, pending)
    }
    return pending
  }
}
