import { $createTextNode, $getSelection, $isRangeSelection, $isTextNode, type EditorState, type LexicalEditor, type LexicalNode } from 'lexical'
import { $isCodeNode, type CodeNode } from '@lexical/code'

// Lexical's markdown shortcut reads "```const " as a code fence whose language is "const". In a
// chat, what follows the fence on the same line is the first word of the code: the block it
// makes keeps that word as its text, with no language, until the person picks one in the
// language picker. Runs right after the shortcut, in the same undo step.
export function keepWordsAfterTheFence(editor: LexicalEditor): () => void {
  return editor.registerUpdateListener(({ editorState, prevEditorState }) => {
    const word = wordAfterFence(prevEditorState)
    if (!word || codeBlockAtCaret(editorState)?.language !== word) return
    editor.update(() => {
      const selection = $getSelection()
      if (!$isRangeSelection(selection)) return
      const block = enclosingCodeBlock(selection.anchor.getNode())
      if (!block || block.getLanguage() !== word) return
      block.setLanguage(null)
      selection.insertNodes([$createTextNode(`${word} `)])
    }, { tag: 'history-merge' })
  })
}

// "```const " typed at the start of a paragraph, up to the caret, with the word it names.
function wordAfterFence(state: EditorState): string | null {
  return state.read(() => {
    const selection = $getSelection()
    if (!$isRangeSelection(selection) || !selection.isCollapsed()) return null
    const node = selection.anchor.getNode()
    if (!$isTextNode(node) || node.getPreviousSibling()) return null
    const typed = node.getTextContent().slice(0, selection.anchor.offset)
    return /^[ \t]*`{3,}([\w-]+)[ \t]$/.exec(typed)?.[1] ?? null
  })
}

function codeBlockAtCaret(state: EditorState): { language: string | null | undefined } | null {
  return state.read(() => {
    const selection = $getSelection()
    const block = $isRangeSelection(selection) ? enclosingCodeBlock(selection.anchor.getNode()) : null
    return block ? { language: block.getLanguage() } : null
  })
}

function enclosingCodeBlock(node: LexicalNode): CodeNode | null {
  for (let current: LexicalNode | null = node; current; current = current.getParent()) if ($isCodeNode(current)) return current
  return null
}
