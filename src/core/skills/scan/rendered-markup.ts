/**
 * Text as rendered Markdown and HTML show it (SEC-12): what a reviewer reads on the rendered page,
 * and what a model reads through the markup anyway. `&#105;gnore`, `ig**no**re`, `ig<span></span>nore`
 * and `[ignore](x) [previous](y)` all render as plain words, yet a pattern over the source sees none
 * of them. Character references are decoded, tags dropped, links reduced to their text, backslash
 * escapes undone and emphasis markers inside a word removed. Line breaks are kept where they were.
 */
const NAMED_REFERENCES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeReference(reference: string): string {
  const code = reference.startsWith('#x') || reference.startsWith('#X') ? Number.parseInt(reference.slice(2), 16) : reference.startsWith('#') ? Number.parseInt(reference.slice(1), 10) : NaN;
  if (Number.isInteger(code) && code > 0 && code <= 0x10ffff) return String.fromCodePoint(code);
  return NAMED_REFERENCES[reference.toLowerCase()] ?? `&${reference};`;
}

export function renderedMarkupText(text: string): string {
  // Nothing to render: most files take this way out.
  if (!/[&<[\\*_~`]/.test(text)) return text;
  return text
    .replace(/&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z]{2,8});/g, (_whole, reference: string) => decodeReference(reference))
    .replace(/<\/?[a-zA-Z][^<>]{0,500}>/g, '')
    .replace(/!?\[([^[\]\n]{0,500})\]\([^()\s]{0,2000}\)/g, '$1')
    .replace(/\\([!-/:-@[-`{-~])/g, '$1')
    .replace(/(?<=\p{L})[*_~`]+(?=\p{L})/gu, '');
}
