// Sends one file as its own message (message[attachment], multipart), reporting progress on
// the pending message's element.
export class FileUploader {
  constructor(private readonly file: File, private readonly url: string, private readonly clientMessageId: string) {}

  upload(): Promise<boolean> {
    const body = new FormData()
    body.set('message[attachment]', this.file)
    body.set('message[client_message_id]', this.clientMessageId)
    return new Promise((resolve) => {
      const request = new XMLHttpRequest()
      request.open('POST', this.url)
      request.setRequestHeader('accept', 'text/vnd.turbo-stream.html')
      request.upload.addEventListener('progress', (event) => {
        const pending = document.getElementById(`message_${this.clientMessageId}`)
        if (pending && event.lengthComputable) pending.style.setProperty('--upload-progress', `${Math.round((event.loaded / event.total) * 100)}%`)
      })
      request.addEventListener('load', () => resolve(request.status >= 200 && request.status < 300))
      request.addEventListener('error', () => resolve(false))
      request.send(body)
    })
  }
}
