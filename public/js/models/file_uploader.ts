import { describeStatus, refusalFrom } from './post_refusal.ts'

const TURBO_STREAM = 'text/vnd.turbo-stream.html'
// A refusal then comes back as {error}, whose sentence the failed message can show.
const ACCEPT = `${TURBO_STREAM}, application/json`
const TIMEOUT_MS = 5 * 60 * 1000

export class UploadFailed extends Error {
  constructor(readonly reason: string | null, message: string, readonly composerFrame: HTMLElement | null = null) {
    super(message)
  }
}

// Sends one file as its own message (message[attachment] and message[client_message_id],
// multipart) with an XHR, whose upload events fetch() does not offer, so the pending message can
// show how far along it is. The request is same-origin, so the browser adds the Origin and
// Sec-Fetch-Site headers the server's forgery protection checks, as it does for the text post.
// Resolves with the Turbo Stream of the new message; rejects with UploadFailed otherwise.
export class FileUploader {
  constructor(
    private readonly file: File,
    private readonly url: string,
    private readonly clientMessageId: string,
    private readonly onProgress: (percent: number) => void = () => {},
  ) {}

  upload(): Promise<string> {
    const body = new FormData()
    body.append('message[attachment]', this.file)
    body.append('message[client_message_id]', this.clientMessageId)
    const request = new XMLHttpRequest()
    request.open('POST', this.url)
    request.setRequestHeader('accept', ACCEPT)
    request.timeout = TIMEOUT_MS
    request.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable && event.total > 0) this.onProgress(Math.min(100, Math.round((event.loaded / event.total) * 100)))
    })
    return new Promise<string>((resolve, reject) => {
      request.addEventListener('load', () => {
        const type = request.getResponseHeader('content-type') ?? ''
        if (request.status >= 200 && request.status < 300 && type.startsWith(TURBO_STREAM)) resolve(request.responseText)
        else {
          const { reason, composerFrame } = refusalFrom(request.status, type, request.responseText)
          reject(new UploadFailed(reason, `HTTP ${request.status}`, composerFrame))
        }
      })
      request.addEventListener('error', () => reject(new UploadFailed(describeStatus(0), 'network error')))
      request.addEventListener('abort', () => reject(new UploadFailed(null, 'cancelled')))
      request.addEventListener('timeout', () => reject(new UploadFailed(null, 'timed out')))
      request.send(body)
    })
  }
}
