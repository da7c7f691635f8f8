import { rm } from 'node:fs/promises'
import { MAX_INPUT_PIXELS, probe as probeImage, type ImageInfo } from './images.ts'
import { filenameBase, writeBlobFile, writeVariant, type VariantFile, type VariantSpec } from './variant-files.ts'
import { VideoError, type VideoMetadata, type VideoProcessor } from './video.ts'

// What a video attachment gets when it is posted: its metadata (VideoAnalyzer's), and, where
// ffmpeg can draw its first relevant frame, that frame as a JPEG (the preview image, named as
// VideoPreviewer names it) and the poster made from it. The files are written; the caller
// records them with the message, or removes them (removeVideoFiles) when it cannot.
export interface VideoDerivatives {
  metadata: VideoMetadata | null
  preview: { image: VariantFile; poster: VariantFile } | null
  // Why something is missing, for one log line; null when nothing is.
  problem: string | null
  // ffprobe ran and could not read the file as a video.
  unreadable?: true
}

async function writePreviewImage(filesRoot: string, jpeg: Buffer, videoFilename: string, image: ImageInfo): Promise<VariantFile> {
  return writeBlobFile(filesRoot, jpeg, {
    filename: `${filenameBase(videoFilename)}.jpg`,
    contentType: 'image/jpeg',
    metadata: { identified: true, width: image.width, height: image.height, analyzed: true },
  })
}

export async function makeVideoDerivatives(video: VideoProcessor, filesRoot: string, upload: { path: string; filename: string }, poster: VariantSpec): Promise<VideoDerivatives> {
  let metadata: VideoMetadata | null = null
  if (video.canProbe) {
    try {
      metadata = await video.probe(upload.path)
    } catch (error) {
      // ffprobe could not read it, so ffmpeg will not draw it either.
      return { metadata: null, preview: null, problem: `not analysed: ${(error as Error).message}`, unreadable: true }
    }
  }
  if (!video.canDrawFrames) return { metadata, preview: null, problem: null }
  if (metadata && !metadata.video) return { metadata, preview: null, problem: 'no poster: the file has no video stream' }
  if (metadata?.width && metadata.height && metadata.width * metadata.height > MAX_INPUT_PIXELS) {
    return { metadata, preview: null, problem: `no poster: the video is larger than ${MAX_INPUT_PIXELS} pixels` }
  }
  let image: VariantFile | null = null
  try {
    const jpeg = await video.relevantFrame(upload.path)
    const frame = await probeImage(jpeg)
    image = await writePreviewImage(filesRoot, jpeg, upload.filename, frame)
    const made = await writeVariant(filesRoot, jpeg, image.filename, poster, frame)
    return { metadata, preview: { image, poster: made }, problem: null }
  } catch (error) {
    if (image) await rm(image.path, { force: true })
    const reason = error instanceof VideoError ? error.message : `the frame could not be made into a poster (${(error as Error).message})`
    return { metadata, preview: null, problem: `no poster: ${reason}` }
  }
}

// The files of derivatives that were not recorded.
export async function removeVideoFiles(derivatives: VideoDerivatives): Promise<void> {
  if (!derivatives.preview) return
  await Promise.all([rm(derivatives.preview.image.path, { force: true }), rm(derivatives.preview.poster.path, { force: true })])
}
