const TURBO_STREAM = 'text/vnd.turbo-stream.html'
// A refusal then comes back as {error}, whose sentence the failed message can show.
const ACCEPT = `${TURBO_STREAM}, application/json`
const TIMEOUT_MS = 5 * 60 * 1000

export class UploadFailed extends Error {
  constructor(readonly reason: string | null, message: string) {
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
        else reject(new UploadFailed(refusal(request), `HTTP ${request.status}`))
      })
      request.addEventListener('error', () => reject(new UploadFailed(null, 'network error')))
      request.addEventListener('abort', () => reject(new UploadFailed(null, 'cancelled')))
      request.addEventListener('timeout', () => reject(new UploadFailed(null, 'timed out')))
      request.send(body)
    })
  }
}

function refusal(request: XMLHttpRequest): string | null {
  if (!(request.getResponseHeader('content-type') ?? '').startsWith('application/json')) return null
  try {
    const { error } = JSON.parse(request.responseText) as { error?: unknown }
    return typeof error === 'string' ? error : null
  } catch {
    return null
  }
}
