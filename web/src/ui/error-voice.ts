/**
 * One voice for what the server says went wrong (UI): every error a user sees reads
 * "<Field>: <plain sentence>." — the field named by its label, no spec ids, no code quotes, no
 * internal ids — whichever screen shows it. The server's messages stay precise for the API; this is
 * only how the browser words them.
 */

/** Spec ids the server cites for developers: "(HAR-5)", "(POL-3, POL-4)", "SEC-1:". */
const SPEC_IDS = /\s*\((?:[A-Z]{2,5}-\d+[a-z]?(?:[\s,/;]+|and\s+)?)+\)|\b[A-Z]{2,5}-\d+[a-z]?:\s*|\s*\b[A-Z]{2,5}-\d+[a-z]?\b/g;

/** A text without the SPEC ids it cites for developers ("(HAR-3)", "SEC-1:"). */
export function withoutSpecIds(text: string): string {
  return text.replace(SPEC_IDS, '').replace(/\(\s*\)/g, '').replace(/\s+([.,;:)])/g, '$1');
}

/** The server's own message without its field prefix, spec ids or code quotes, as a sentence. */
export function plainSentence(message: string, field?: string): string {
  let text = message;
  if (field) {
    const escaped = field.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    text = text.replace(new RegExp(`^${escaped}(\\.[\\w.]+)?: `), '');
  }
  text = text
    .replace(SPEC_IDS, '')
    .replace(/`/g, '')
    // "run 'run_0192…' not found" → "run not found": internal ids (prefix_hex) mean nothing to a person.
    .replace(/^[a-z ]+ '?[a-z]+_[0-9a-f]{12,}'?: /, '')
    .replace(/\s'?[a-z]+_[0-9a-f]{12,}'?/g, '')
    // A transport's refusal names its adapter id and capability flag; the sentence before says it all.
    .replace(/\s*\([a-z0-9-]+\)(?= does not)/g, '')
    .replace(/:\s*its transport does not declare the \w+ capability/g, '')
    .replace(/\s{2,}/g, ' ')
    .trim();
  if (text === '') return 'Something went wrong.';
  text = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?…]$/.test(text) ? text : `${text}.`;
}

/**
 * "Scope: A space rule needs the space id." — or the sentence alone when no field is named (or the
 * whole request is). `label` names the field as a user reads it (words.ts `fieldWord`).
 */
export function voiceOf(message: string, field: string | undefined, label: (field: string) => string): string {
  const sentence = plainSentence(message, field);
  if (!field || field === 'body') return sentence;
  return `${label(field)}: ${sentence}`;
}
