import { findPlaceholders, lookupPath } from './placeholders.js';

/**
 * A `condition` node's expression (PIPE-1): `<operand>` (truthiness) or `<operand> <op> <operand>`
 * with op one of `==`, `!=`, `<`, `<=`, `>`, `>=`. An operand is a `{{placeholder}}`, a JSON literal
 * (number, `true`, `false`, `null`, a double-quoted string) or a bare word (a string). No functions,
 * no code: the expression is evaluated, never executed.
 */
const OPERATORS = ['==', '!=', '<=', '>=', '<', '>'] as const;
type Operator = (typeof OPERATORS)[number];

interface ParsedExpression {
  left: string;
  operator: Operator | null;
  right: string | null;
}

function splitExpression(expression: string): ParsedExpression | null {
  const trimmed = expression.trim();
  if (!trimmed) return null;
  // Operators outside placeholders and quoted strings only.
  let depth = 0;
  let quoted = false;
  for (let index = 0; index < trimmed.length; index += 1) {
    const char = trimmed[index]!;
    if (char === '"' && trimmed[index - 1] !== '\\') quoted = !quoted;
    if (quoted) continue;
    if (trimmed.startsWith('{{', index)) depth += 1;
    if (trimmed.startsWith('}}', index)) depth = Math.max(0, depth - 1);
    if (depth > 0) continue;
    for (const operator of OPERATORS) {
      if (trimmed.startsWith(operator, index)) {
        const left = trimmed.slice(0, index).trim();
        const right = trimmed.slice(index + operator.length).trim();
        if (!left || !right || OPERATORS.some((other) => right.startsWith(other) || right.includes(` ${other} `))) return null;
        return { left, operator, right };
      }
    }
  }
  return { left: trimmed, operator: null, right: null };
}

/** Null when the expression is well formed; else why not (the validator reports it on the node). */
export function checkConditionExpression(expression: string): string | null {
  const parsed = splitExpression(expression);
  if (!parsed) return 'expected `<operand>` or `<operand> <op> <operand>` with op one of ==, !=, <, <=, >, >=';
  for (const operand of [parsed.left, parsed.right]) {
    if (operand === null) continue;
    if (/^\{\{[^}]*\}\}$/.test(operand) && findPlaceholders(operand).length === 1) continue;
    if (operand.includes('{{') || operand.includes('}}')) return `operand ${JSON.stringify(operand)} mixes a placeholder with other text`;
    if (operand.startsWith('"')) {
      try {
        if (typeof JSON.parse(operand) !== 'string') return `operand ${operand} is not a string literal`;
      } catch {
        return `operand ${operand} is not a well-formed string literal`;
      }
    } else if (/\s/.test(operand)) {
      return `operand ${JSON.stringify(operand)} has spaces: quote it`;
    }
  }
  return null;
}

function literal(operand: string): unknown {
  if (operand.startsWith('"')) return JSON.parse(operand) as string;
  if (operand === 'true') return true;
  if (operand === 'false') return false;
  if (operand === 'null') return null;
  if (/^-?\d+(\.\d+)?$/.test(operand)) return Number(operand);
  return operand;
}

function operandValue(operand: string, sources: ReadonlyMap<string, unknown>): { ok: true; value: unknown } | { ok: false; error: string } {
  const refs = findPlaceholders(operand);
  if (refs.length === 1 && refs[0]!.text === operand) {
    const ref = refs[0]!;
    // The raw value (not its string rendering), so numbers compare as numbers.
    const found = sources.has(ref.source) ? lookupPath(sources.get(ref.source), ref.path) : { found: false, value: undefined };
    if (!found.found) return { ok: false, error: `unresolved placeholder ${operand}` };
    return { ok: true, value: found.value };
  }
  return { ok: true, value: literal(operand) };
}

function truthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  return Boolean(value) && value !== 'false';
}

function compare(left: unknown, operator: Operator, right: unknown): boolean {
  if (operator === '==') return JSON.stringify(left) === JSON.stringify(right) || String(left) === String(right);
  if (operator === '!=') return !(JSON.stringify(left) === JSON.stringify(right) || String(left) === String(right));
  const a = typeof left === 'number' ? left : Number(left);
  const b = typeof right === 'number' ? right : Number(right);
  if (Number.isNaN(a) || Number.isNaN(b)) return false;
  if (operator === '<') return a < b;
  if (operator === '<=') return a <= b;
  if (operator === '>') return a > b;
  return a >= b;
}

/** Evaluates against upstream outputs; an unresolved placeholder is an error (the node fails). */
export function evaluateCondition(expression: string, sources: ReadonlyMap<string, unknown>): { ok: true; value: boolean } | { ok: false; error: string } {
  const problem = checkConditionExpression(expression);
  if (problem) return { ok: false, error: problem };
  const parsed = splitExpression(expression)!;
  const left = operandValue(parsed.left, sources);
  if (!left.ok) return left;
  if (parsed.operator === null || parsed.right === null) return { ok: true, value: truthy(left.value) };
  const right = operandValue(parsed.right, sources);
  if (!right.ok) return right;
  return { ok: true, value: compare(left.value, parsed.operator, right.value) };
}
