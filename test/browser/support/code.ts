// A code block wider than a phone's message bubble and narrower than a desktop's.
export const WIDE_CODE = '<pre>const palette = ["ink", "paper", "rust", "moss", "slate", "sand"]\nconsole.log(palette.length)</pre>'
