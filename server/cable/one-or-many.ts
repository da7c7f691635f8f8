// A multimap whose values cost nothing extra while they hold a single member. Most streams
// (a person's own "<gid>:rooms") have one subscriber and most people have one socket, and
// with 10,000 sockets a Set per key is over a megabyte of empty hash tables.
export class OneOrManyMap<K, V extends object> {
  private readonly entries = new Map<K, V | Set<V>>()

  get size(): number {
    return this.entries.size
  }

  add(key: K, value: V): void {
    const held = this.entries.get(key)
    if (held === undefined) this.entries.set(key, value)
    else if (held instanceof Set) held.add(value)
    else if (held !== value) this.entries.set(key, new Set([held, value]))
  }

  // True when the value was there.
  delete(key: K, value: V): boolean {
    const held = this.entries.get(key)
    if (held === value) return this.entries.delete(key)
    if (!(held instanceof Set) || !held.delete(value)) return false
    if (held.size === 1) this.entries.set(key, held.values().next().value!)
    return true
  }

  count(key: K): number {
    const held = this.entries.get(key)
    return held === undefined ? 0 : held instanceof Set ? held.size : 1
  }

  // The members of one key, safe to iterate while members are removed.
  get(key: K): V[] {
    const held = this.entries.get(key)
    return held === undefined ? [] : held instanceof Set ? [...held] : [held]
  }

  // The raw holding, for hot loops that must not allocate: one member, a set, or nothing.
  lookup(key: K): V | ReadonlySet<V> | undefined {
    return this.entries.get(key)
  }
}
