import bcrypt from 'bcrypt'

// Runs in a piscina worker so that bcrypt (about a quarter second at cost 12) never blocks
// the event loop. Rails' has_secure_password digests ("$2a$12$...") verify here unchanged.
export interface PasswordTask {
  op: 'hash' | 'verify'
  password: string
  digest?: string | null
  cost?: number
}

export default async function password(task: PasswordTask): Promise<string | boolean> {
  if (task.op === 'hash') return bcrypt.hash(task.password, task.cost ?? 12)
  if (!task.digest || !task.digest.startsWith('$2')) return false
  try {
    return await bcrypt.compare(task.password, task.digest)
  } catch {
    return false
  }
}
