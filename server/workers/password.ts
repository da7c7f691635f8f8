import bcrypt from 'bcrypt'

// Runs in a piscina worker so that bcrypt (about a quarter second at cost 12) never blocks
// the event loop. Rails' has_secure_password digests ("$2a$12$...") verify here unchanged.
export interface PasswordTask {
  op: 'hash' | 'verify'
  password: string
  digest?: string | null
  // bcrypt's cost for a hash; the server's (and reset-password's) default when unset.
  cost?: number
}

const DEFAULT_COST = 12

export default async function password(task: PasswordTask): Promise<string | boolean> {
  if (task.op === 'hash') return bcrypt.hash(task.password, task.cost ?? DEFAULT_COST)
  if (!task.digest || !task.digest.startsWith('$2')) return false
  try {
    return await bcrypt.compare(task.password, task.digest)
  } catch {
    return false
  }
}
