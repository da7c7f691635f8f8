// Array#to_sentence: "a", "a and b", "a, b, and c".
export function toSentence(words: string[]): string {
  if (words.length <= 1) return words[0] ?? ''
  if (words.length === 2) return `${words[0]} and ${words[1]}`
  return `${words.slice(0, -1).join(', ')}, and ${words[words.length - 1]}`
}

// A direct room is named for the other people in it, or for yourself when alone in it.
export function directRoomName(others: { name: string }[], ownName: string): string {
  return others.length === 0 ? ownName : toSentence(others.map((other) => other.name))
}
