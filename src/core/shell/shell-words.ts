import type { SyntaxNode as Node } from './syntax-tree.js';

/**
 * One shell word as the classifier sees it: `value` is what the shell would pass when it can be known
 * statically (quotes removed, escapes resolved); `null` when it depends on run-time expansion
 * (`$VAR`, `$(…)`, arithmetic). `raw` is the source text, kept for display and rule matching.
 */
export interface ShellWord {
  readonly value: string | null;
  readonly raw: string;
}

/** A word whose value is known. */
export function staticWord(value: string): ShellWord {
  return { value, raw: value };
}

/** A word whose value is only known at run time. */
export function dynamicWord(raw: string): ShellWord {
  return { value: null, raw };
}

/** Resolves backslash escapes outside quotes: `\x` is `x`, a trailing backslash-newline disappears. */
function unescapeBare(text: string): string {
  if (!text.includes('\\')) return text;
  let result = '';
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index]!;
    if (char === '\\' && index + 1 < text.length) {
      index += 1;
      if (text[index] !== '\n') result += text[index];
    } else {
      result += char;
    }
  }
  return result;
}

/** Inside double quotes a backslash only escapes `$`, backquote, `"`, `\` and newline. */
function unescapeDoubleQuoted(text: string): string {
  if (!text.includes('\\')) return text;
  let result = '';
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index]!;
    const next = text[index + 1];
    if (char === '\\' && next !== undefined && '$`"\\\n'.includes(next)) {
      index += 1;
      if (next !== '\n') result += next;
    } else {
      result += char;
    }
  }
  return result;
}

const ANSI_C_ESCAPES: Readonly<Record<string, string>> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', a: '\x07', b: '\b', e: '\x1b', f: '\f', v: '\v' };

/** `$'…'` strings: the common escapes; anything exotic makes the word dynamic rather than guessed. */
function decodeAnsiC(body: string): string | null {
  let result = '';
  for (let index = 0; index < body.length; index += 1) {
    const char = body[index]!;
    if (char !== '\\') {
      result += char;
      continue;
    }
    const next = body[index + 1];
    if (next === undefined) return null;
    const simple = ANSI_C_ESCAPES[next];
    if (simple === undefined) return null;
    result += simple;
    index += 1;
  }
  return result;
}

const BRACE_EXPANSION = /\{[^{}]*(,|\.\.)[^{}]*\}/;

/** The static value of a node, or `null` when any part of it is expanded at run time. */
function staticValue(node: Node): string | null {
  switch (node.type) {
    case 'word':
    case 'command_name':
      if (node.type === 'command_name') {
        const child = node.namedChild(0);
        return child ? staticValue(child) : null;
      }
      return unescapeBare(node.text);
    case 'number':
      return node.text;
    case 'raw_string':
      return node.text.slice(1, -1);
    case 'ansi_c_string':
      return decodeAnsiC(node.text.slice(2, -1));
    case 'string':
    case 'translated_string': {
      const inner = node.type === 'translated_string' ? node.namedChild(0) : node;
      if (!inner) return null;
      let result = '';
      for (let index = 0; index < inner.namedChildCount; index += 1) {
        const part = inner.namedChild(index)!;
        if (part.type !== 'string_content') return null;
        result += unescapeDoubleQuoted(part.text);
      }
      return result;
    }
    case 'concatenation': {
      // Brace expansion (`{/etc/x,y}`, `a{1..3}`) turns one word into several at run time, so no single
      // static value is honest. A bare `{}` (find's placeholder) is literal.
      if (BRACE_EXPANSION.test(node.text)) return null;
      let result = '';
      for (let index = 0; index < node.childCount; index += 1) {
        const part = staticValue(node.child(index)!);
        if (part === null) return null;
        result += part;
      }
      return result;
    }
    default:
      return null;
  }
}

/** Turns an argument node into a {@link ShellWord}. */
export function wordFromNode(node: Node): ShellWord {
  return { value: staticValue(node), raw: node.text };
}
