// A value made when first asked for, not when the server starts: an LRU cache fills its arrays
// of `max` slots when made (2 ms for 20,000), and a start that made the server's dozen of them
// spent some 9 ms before it could listen on caches no request had used yet.
export function onFirstUse<T>(make: () => T): () => T {
  let made = false
  let value: T
  return () => {
    if (!made) {
      value = make()
      made = true
    }
    return value
  }
}
