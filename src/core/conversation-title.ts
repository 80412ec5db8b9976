/**
 * Auto-titles (UI): a conversation nobody named gets a title from its first message,
 * deterministically and without a model call, so the same message always gives the same title and
 * nothing leaves the machine. The operator can rename it afterwards.
 */

/** The title a conversation has until someone (or its first message) names it. */
export const UNTITLED_CONVERSATION = 'New conversation';

/** Longest auto-title, in characters (the sidebar shows about this much). */
export const AUTO_TITLE_MAX = 60;

/**
 * Control and invisible formatting characters (bidi overrides, zero-width, BOM) except the newline:
 * the same set a display name refuses (schemas/common.ts), so an auto-title is always a valid title
 * and an agent-supplied message cannot make the sidebar read differently from what it is.
 */
// eslint-disable-next-line no-control-regex -- removing control characters is the point
const INVISIBLE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/gu;

/**
 * A directive line meant for a scripted or tool-driving model, not for people: an upper-case keyword
 * (`TOOL`, `REPLY`, …), at most one word-like argument and an optional JSON payload — `TOOL bash
 * {"command":"ls"}`. Prose that happens to start in capitals ("FIX the login bug") has more words and
 * stays. Such a line would otherwise become the sidebar's name for the conversation.
 */
const DIRECTIVE_LINE = /^\s*[A-Z][A-Z_]{2,}(?:\s+[\w.:-]+)?\s*(?:[{[].*)?$/;

/** A leading slash command (`/plan`, `/skill:review`): the words after it are the message. */
const SLASH_COMMAND = /^\s*\/[a-z][\w-]*(?::[\w.-]+)?\s*/i;

/**
 * The title a first message gives: its first non-empty line that is not a directive, without a
 * leading slash command or markdown heading/quote/list marks, control characters removed,
 * whitespace collapsed, cut at a word boundary to {@link AUTO_TITLE_MAX} characters with "…". Null when nothing readable is left (the
 * conversation then stays untitled).
 */
export function titleFromMessage(text: string): string | null {
  const lines = text
    .replace(INVISIBLE, ' ')
    .split('\n')
    .filter((line) => !DIRECTIVE_LINE.test(line))
    .map((line) =>
      line
        .replace(SLASH_COMMAND, '')
        .replace(/^\s*(?:#{1,6}\s+|>\s*|[-*+]\s+|\d+[.)]\s+)/, '')
        .replace(/[`*_~]+/g, '')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter((line) => line !== '');
  const first = lines[0];
  if (!first) return null;
  if (first.length <= AUTO_TITLE_MAX) return first;
  const cut = first.slice(0, AUTO_TITLE_MAX - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space >= AUTO_TITLE_MAX / 2 ? cut.slice(0, space) : cut).replace(/[\s,.;:!?-]+$/, '')}…`;
}
