// String#all_emoji? from Campfire's lib/rails_ext/string.rb: one or more emoji code points and
// variation selectors, nothing else. Whitespace does not count, so "🔥 💯" is not all emoji
// (test/models/message_test.rb), and neither is a ZWJ sequence, whose joiner is no emoji.
const ALL_EMOJI = /^(?:\p{Emoji_Presentation}|\p{Extended_Pictographic}|\uFE0F)+$/u

export const isAllEmoji = (value: string): boolean => ALL_EMOJI.test(value)
