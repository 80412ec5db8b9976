import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { REPO_ROOT } from './ensure-web-build.js';

/**
 * The names check (UI): internal names never reach the screen. Reads what a person sees on a page —
 * visible text outside code blocks, the names assistive technology reads out, the options of a
 * visible select — and finds what only the code knows: prefixed ids (`run_…`), uuids and ULIDs,
 * camelCase enum and field values, SPEC ids (`HAR-3`), type names in error
 * texts ("RepoPath") and the scan rules' kebab ids (`pipe-to-shell`).
 */

/** One internal name found on a page: what it is, the word, and the text it sits in. */
export interface NameFinding {
  kind: 'id' | 'camelCase' | 'spec id' | 'type name' | 'rule id';
  word: string;
  text: string;
}

/** The prefixes of SPEC ids: cited in code comments and tests, never on a screen. */
const SPEC_ID = /\b(?:SEC|PLAN|AG|RLY|CAP|POL|MODE|HAR|SKL|REV|ORC|TRUTH|ADP|WS|TOOL|TEAM|SBX|CTX|CHG|PIPE|NTF|BUD|UI)-\d+[a-z]?\b/g;
/** src/ids.ts: a short lower-case prefix, "_", then 26 hex digits (time, counter, random). */
const PREFIXED_ID = /\b[a-z]{1,6}_[0-9a-f]{16,}\b/g;
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const ULID = /\b[0-9A-HJKMNP-TV-Z]{26}\b/g;
const CAMEL_CASE = /\b[a-z]+(?:[A-Z][a-z0-9]*)+\b/g;
/** "RepoPath", "ValidationError": two or more capitalised words run together. */
const TYPE_NAME = /\b[A-Z][a-z]+(?:[A-Z][a-z]+)+\b/g;
/** Product and brand names written that way on purpose. */
const BRAND_NAMES = new Set(['GitHub', 'GitLab', 'OpenAI', 'DeepSeek', 'JavaScript', 'TypeScript', 'PostgreSQL', 'WebSocket', 'LinkedIn', 'YouTube', 'PowerShell', 'iPhone', 'iOS', 'macOS', 'xAI']);

/** The ids of the skill scanner's rules (SKL-3), read from their files: kebab names a person should see as words. */
export async function scanRuleIds(): Promise<string[]> {
  const folder = join(REPO_ROOT, 'src', 'core', 'skills', 'scan', 'rules');
  const ids: string[] = [];
  for (const file of await readdir(folder)) {
    const source = await readFile(join(folder, file), 'utf8');
    for (const found of source.matchAll(/^\s*id: '([a-z0-9-]+)'/gm)) ids.push(found[1]!);
  }
  return ids;
}

/** What a person sees and hears on the page, as short texts (code and pre blocks left out: quoting code is their job). */
/**
 * Runs in the page (a string: the tests compile without the DOM's types). What a person sees and
 * hears, as short texts; code and pre blocks are left out, quoting code is their job.
 */
const VISIBLE_TEXTS_SCRIPT = `(() => {
  const texts = [];
  const inCode = (element) => element.closest('code, pre, kbd, samp, script, style, textarea') !== null;
  const shown = (element) => element.checkVisibility({ visibilityProperty: true });
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    const text = (node.textContent || '').trim();
    if (!parent || text === '' || inCode(parent)) continue;
    // An option is part of what a person sees when its select is on the screen.
    const owner = parent.closest('select') || parent;
    if (shown(owner)) texts.push(text);
  }
  for (const element of document.querySelectorAll('[aria-label], [placeholder], [title], img[alt]')) {
    if (!shown(element) || inCode(element)) continue;
    for (const attribute of ['aria-label', 'placeholder', 'title', 'alt']) {
      const value = (element.getAttribute(attribute) || '').trim();
      if (value) texts.push(value);
    }
  }
  return texts;
})()`;

/** What a person sees and hears on the page, as short texts. */
export async function visibleTexts(page: Page): Promise<string[]> {
  return (await page.evaluate(VISIBLE_TEXTS_SCRIPT)) as string[];
}

/** The internal names in `texts`; `ruleIds` are the kebab names that must not show as they are. */
export function internalNames(texts: readonly string[], ruleIds: readonly string[]): NameFinding[] {
  const findings: NameFinding[] = [];
  const add = (kind: NameFinding['kind'], word: string, text: string) => {
    if (!findings.some((finding) => finding.kind === kind && finding.word === word)) findings.push({ kind, word, text: text.slice(0, 160) });
  };
  const ruleId = ruleIds.length > 0 ? new RegExp(`(?<![\\w-])(?:${ruleIds.join('|')})(?![\\w-])`, 'g') : null;
  for (const text of texts) {
    for (const [word] of text.matchAll(PREFIXED_ID)) add('id', word, text);
    for (const [word] of text.matchAll(UUID)) add('id', word, text);
    for (const [word] of text.matchAll(ULID)) add('id', word, text);
    for (const [word] of text.matchAll(SPEC_ID)) add('spec id', word, text);
    // A file path is the user's own name for a place ("/tmp/repo-tKzFhS"): its letters are not a leaked value.
    const words = text.replace(/\S*\/\S*/g, ' ');
    for (const [word] of words.matchAll(CAMEL_CASE)) if (!BRAND_NAMES.has(word)) add('camelCase', word, text);
    for (const [word] of words.matchAll(TYPE_NAME)) if (!BRAND_NAMES.has(word)) add('type name', word, text);
    if (ruleId) for (const [word] of text.matchAll(ruleId)) add('rule id', word, text);
  }
  return findings;
}
