// Who is looking and where, read from the layout's meta tags (the page HTML, not the shared
// message fragments, carries the viewer).
function meta(name: string): string | null {
  return document.head.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? null
}

export const Current = {
  get userId(): number | null {
    const id = meta('current-user-id')
    return id ? Number(id) : null
  },
  get userName(): string | null {
    return meta('current-user-name')
  },
  get roomId(): number | null {
    const id = meta('current-room-id')
    return id ? Number(id) : null
  },
  get isAdmin(): boolean {
    return document.body.classList.contains('admin')
  },
  get vapidPublicKey(): string {
    return meta('vapid-public-key') ?? ''
  },
}
