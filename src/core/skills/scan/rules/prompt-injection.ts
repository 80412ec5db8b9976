import type { ScanRule } from '../scan-types.js';
import { renderedMarkupText } from '../rendered-markup.js';
import { normalizeUntrustedText } from '../untrusted-text.js';
import { matchText } from './line-rule.js';

/**
 * What may stand between two words of a phrase: white space including line breaks (an instruction
 * split across lines reads as one to a model), and the Markdown that renders as nothing between
 * words (emphasis, quote and list markers, table bars, dashes).
 */
const GAP = String.raw`[\s*_~\x60>#|-]+`;

/** Builds one phrase pattern: `~` marks a gap between words. */
const phrase = (source: string): RegExp => new RegExp(source.replaceAll('~', GAP), 'i');

const PATTERNS: readonly RegExp[] = [
  phrase(String.raw`\b(?:ignore|disregard|forget|override)~(?:(?:all|any|the|your)~)*(?:previous|prior|above|earlier|preceding|system|other)~(?:instructions|prompts?|rules|directions|guidelines)`),
  phrase(String.raw`\b(?:do~not|don['’]t|never)~(?:tell|inform|notify|show|mention~(?:this~)?to|alert)~the~(?:user|operator|human)`),
  phrase(String.raw`\bwithout~(?:asking|telling|informing|notifying)~the~(?:user|operator|human)`),
  phrase(String.raw`\b(?:reveal|print|output|exfiltrate|send)~(?:(?:your|the)~)?(?:system~prompt|hidden~instructions)`),
  phrase(String.raw`\byou~are~now~(?:in~)?(?:developer|god|jailbreak|DAN|unrestricted)\b`),
  phrase(String.raw`\b(?:bypass|disable|turn~off)~(?:the~)?(?:approval|safety|sandbox|guardrails?|permission~checks?)`),
];
const MESSAGE = 'contains phrasing that overrides instructions or hides actions from the user';

/**
 * SKL-3 `prompt-injection`, SEC-12: phrasing that tries to override the agent's instructions or
 * hide actions from the user, read over the whole normalized text (hidden payloads decoded, NFKC,
 * invisible characters removed), not one line at a time.
 * When the text as written shows none, it is read again as
 * rendered markup shows it (character references decoded, tags and in-word emphasis dropped).
 */
export const promptInjection: ScanRule = {
  id: 'prompt-injection',
  severity: 'quarantine',
  description: 'contains phrasing that overrides instructions or hides actions from the user',
  checkText(file) {
    const found = matchText(file, 'prompt-injection', 'quarantine', PATTERNS, MESSAGE);
    if (found.length > 0) return found;
    // The same phrases spelled through markup that renders as plain words (SEC-12).
    const rendered = normalizeUntrustedText(renderedMarkupText(file.text));
    return rendered === file.text ? [] : matchText({ ...file, text: rendered }, 'prompt-injection', 'quarantine', PATTERNS, `${MESSAGE} (spelled through markup)`);
  },
};
