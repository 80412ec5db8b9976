import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import css from 'highlight.js/lib/languages/css';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

// The core and a dozen common languages, not the whole library: the view loads with them, and
// automatic detection (slow, and wrong on short lines) is never used.
const LANGUAGES = { bash, css, go, java, javascript, json, markdown, python, rust, sql, typescript, xml, yaml };
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);

const LANGUAGE_OF_EXTENSION: Record<string, keyof typeof LANGUAGES> = {
  sh: 'bash', bash: 'bash', zsh: 'bash',
  css: 'css', scss: 'css',
  go: 'go',
  java: 'java', kt: 'java',
  js: 'javascript', jsx: 'javascript', mjs: 'javascript', cjs: 'javascript',
  json: 'json',
  md: 'markdown', markdown: 'markdown',
  py: 'python',
  rs: 'rust',
  sql: 'sql',
  ts: 'typescript', tsx: 'typescript', mts: 'typescript', cts: 'typescript',
  html: 'xml', xml: 'xml', svg: 'xml',
  yml: 'yaml', yaml: 'yaml',
};

/** The language a file's name says it is in, or null (then lines are shown plain). */
export function languageOf(path: string): string | null {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? (LANGUAGE_OF_EXTENSION[name.slice(dot + 1).toLowerCase()] ?? null) : null;
}

/**
 * One line of code as highlighted HTML. highlight.js escapes the text it is given (`&`, `<`, `>`,
 * quotes) and only adds its own `<span class="hljs-…">`, so a file's content — the agent's — never
 * becomes markup. Lines are highlighted one at a time: a diff shows pieces of a file, not the whole.
 */
export function highlightLine(text: string, language: string): string {
  return hljs.highlight(text, { language, ignoreIllegals: true }).value;
}
