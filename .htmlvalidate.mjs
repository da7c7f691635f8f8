// html-validate's rules for the HTML the server sends (test/views/valid-html.test.ts checks every
// page, fragment and push with them; docs/accessibility.md says how to run it). We take the
// recommended set, which holds every content-model rule, and switch off only rules of pure style,
// each with its reason. Everything else is an error.
export default {
  root: true,
  extends: ['html-validate:recommended'],
  rules: {
    // Style: indentation inside templates leaves trailing spaces; browsers and people never see them.
    'no-trailing-whitespace': 'off',
    // Style: `checked` and `checked="checked"` mean the same; our forms write both (the Rails
    // form helpers' spelling is the second), and either is valid HTML.
    'attribute-boolean-style': 'off',
    // Style: we set per-element values inline on purpose (a view-transition-name per room or
    // message, a thumbnail's aspect-ratio, a button's custom properties); nothing forbids inline
    // styles here (there is no style-src policy), and the values are not shared rules.
    'no-inline-style': 'off',
    // Configured, not off: lists, menus and sections may carry aria-label. ARIA lets a list be
    // named, and a screen reader then says "People in this room, list, 7 items". (The preset's
    // default flags these 11 named lists as "allowed but not recommended"; none is an error.)
    'aria-label-misuse': ['error', { allowAnyNamable: true }],
    // Not off: `wcag/h32` (a form without a submit button) is an error everywhere except the four
    // forms that submit when their one control changes, each listed with its reason in
    // test/views/valid-html.test.ts's ACCEPTED table.
  },
}
