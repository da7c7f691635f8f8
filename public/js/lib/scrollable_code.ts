// A code block wider than its bubble scrolls sideways: it then takes a place in the Tab order
// (tabindex="0"), so the arrow keys can scroll it, and gives it up when it fits again (a wider
// window, a phone turned sideways). One observer for every block on the page; a block that has
// left the page is let go.
const observer = new ResizeObserver((entries) => {
  for (const { target } of entries) {
    const block = target as HTMLElement
    if (!block.isConnected) observer.unobserve(block)
    else if (block.scrollWidth > block.clientWidth + 1) block.tabIndex = 0
    else block.removeAttribute('tabindex')
  }
})

export function scrollCodeByKeyboard(root: ParentNode): void {
  for (const block of root.querySelectorAll<HTMLElement>('.trix-content pre')) observer.observe(block)
}
