import type { SyntaxNode as Node } from './syntax-tree.js';
import { wordFromNode } from './shell-words.js';

/**
 * Text bash runs as code although the line never shows it as a command (SEC-5). Bash evaluates an
 * array subscript wherever it meets one, and a subscript's `$(…)` runs:
 * - arithmetic (`(( x ))`, `$(( x ))`, `[[ $x -eq 1 ]]`, `for ((…))`, `let`, `${s:x}`, `a[x]`,
 *   `declare -i`) evaluates a variable's *value* as an expression, so `x='a[$(rm -rf src)]'; (( x ))`
 *   runs `rm`, and so does `(( n ))` after `n=$(cat count.txt)` when the file holds such a text;
 * - builtins that take a variable *name* (`read`, `printf -v`, `declare`/`export`/`local`, `test -v`,
 *   `getopts`, `mapfile`, `wait -p`) evaluate the subscript of a name given as a quoted word:
 *   `read 'a[$(git push)]' <<< 1` pushes;
 * - `${x@P}` expands `x`'s value as a prompt (command substitutions included), `${!x}` and a nameref
 *   (`declare -n r=…`) read `x`'s value as a name, subscript and all.
 *
 * A variable this line (or a script it runs) sets to anything but a plain number — a word, a quoted
 * string, command output, `read`/`mapfile`/`for` input — is *tainted*: its value may be such a text.
 * A variable the line does not set comes from the sandbox's environment, which the server sets. The
 * line runs unseen code when an evaluation meets a tainted variable, a command substitution, or a
 * name or expression word whose text holds `$(`, a backquote or an expansion.
 */

/** Builtins whose operands (or one option's value) are variable names bash resolves, subscript included. */
const NAME_TAKING_BUILTINS: ReadonlySet<string> = new Set(['read', 'printf', 'declare', 'typeset', 'local', 'export', 'readonly', 'test', '[', 'getopts', 'mapfile', 'readarray', 'wait', 'let']);

/** The `[[ … ]]` operators whose operands are arithmetic expressions (`[ … ]` compares them as integers only). */
const ARITHMETIC_TEST_OPERATORS: ReadonlySet<string> = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);

/** Text that runs something when evaluated as an expression or a name: a substitution or an expansion. */
const CODE_IN_TEXT = /\$|`/;

const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_]*/g;

/** A value that stays harmless however often bash evaluates it: a plain (signed) number or nothing. */
function harmlessValue(text: string): boolean {
  return /^[-+]?[0-9]*$/.test(text.trim());
}

function eachNode(node: Node, visit: (node: Node) => void): void {
  visit(node);
  for (const child of node.children) eachNode(child, visit);
}

function commandName(node: Node): string | null {
  const name = node.childForFieldName('name');
  return name ? wordFromNode(name).value : null;
}

function commandArguments(node: Node): Node[] {
  return node.children.filter((child) => child.field === 'argument');
}

/** Collects the variables a syntax tree sets to values that may be code when evaluated (see above). */
export function collectTaintedVariables(root: Node, tainted: Set<string>): void {
  eachNode(root, (node) => {
    if (node.type === 'variable_assignment') {
      const name = node.childForFieldName('name');
      const variable = name?.type === 'subscript' ? name.childForFieldName('name') : name;
      const value = node.childForFieldName('value');
      const text = value ? wordFromNode(value).value : '';
      if (variable && (text === null || !harmlessValue(text))) tainted.add(variable.text);
    } else if (node.type === 'expansion' && node.children.some((child) => child.type === ':=' || child.type === '=')) {
      // `${x:=VALUE}` / `${x=VALUE}` assign VALUE when x is unset.
      const variable = node.children.find((child) => child.type === 'variable_name');
      const value = node.namedChildren.at(-1);
      if (variable && (value === variable || value === undefined || !harmlessValue(wordFromNode(value).value ?? 'x'))) tainted.add(variable.text);
    } else if (node.type === 'for_statement') {
      const variable = node.childForFieldName('variable');
      const values = node.childrenForFieldName('value');
      if (variable && (values.length === 0 || values.some((value) => !harmlessValue(wordFromNode(value).value ?? 'x')))) tainted.add(variable.text);
    } else if (node.type === 'command') {
      const name = commandName(node);
      if (name === 'read' || name === 'mapfile' || name === 'readarray' || name === 'printf' || name === 'getopts' || name === 'wait') {
        // Every word that could be a name it assigns (over-counting only costs an ask).
        for (const argument of commandArguments(node)) {
          const text = wordFromNode(argument).value;
          for (const identifier of (text ?? '').match(IDENTIFIER) ?? []) tainted.add(identifier);
        }
      }
    }
  });
}

/**
 * Positional parameters (`$1`, `$@`): words the line hands a script or function (`bash -c '(( $1 ))' _
 * 'a[$(…)]'`, `set -- …`), so what they hold is never known to be a number.
 */
function positional(node: Node): boolean {
  return (node.type === 'variable_name' && /^[0-9]+$/.test(node.text)) || (node.type === 'special_variable_name' && (node.text === '@' || node.text === '*'));
}

/** True when an arithmetic expression (its syntax below `node`) may run code: see the module comment. */
function arithmeticRunsCode(node: Node, tainted: ReadonlySet<string>): boolean {
  let runs = false;
  eachNode(node, (inner) => {
    if (runs) return;
    if (inner.type === 'command_substitution' || inner.type === 'process_substitution') runs = true;
    else if ((inner.type === 'variable_name' && tainted.has(inner.text)) || positional(inner)) runs = true;
    else if (inner.type === 'word' || inner.type === 'raw_string' || inner.type === 'string_content') {
      const text = inner.text;
      if (CODE_IN_TEXT.test(text) || (text.match(IDENTIFIER) ?? []).some((identifier) => tainted.has(identifier))) runs = true;
    }
  });
  return runs;
}

/** A word a builtin resolves as a variable name (or, for `let`, evaluates): code when its subscript or text may run. */
function nameWordRunsCode(word: Node, tainted: ReadonlySet<string>, expression: boolean): boolean {
  const value = wordFromNode(word).value;
  if (value === null) return true;
  const text = expression ? value : value.includes('[') ? value.slice(value.indexOf('[')) : '';
  if (text === '') return false;
  return CODE_IN_TEXT.test(text) || (text.match(IDENTIFIER) ?? []).some((identifier) => tainted.has(identifier));
}

function builtinRunsCode(node: Node, tainted: ReadonlySet<string>): boolean {
  const name = commandName(node);
  if (name === null || !NAME_TAKING_BUILTINS.has(name)) return false;
  const args = commandArguments(node);
  if (name === 'let') return args.some((word) => nameWordRunsCode(word, tainted, true));
  if (name === 'test' || name === '[') {
    return args.some((word, index) => index > 0 && wordFromNode(args[index - 1]!).value === '-v' && nameWordRunsCode(word, tainted, false));
  }
  if (name === 'printf') {
    const option = args.findIndex((word) => wordFromNode(word).value === '-v');
    return option !== -1 && args[option + 1] !== undefined && nameWordRunsCode(args[option + 1]!, tainted, false);
  }
  // `declare -n ref=VALUE`, `declare -i n=VALUE`: the value is a name or an expression too.
  const flags = args.map((word) => wordFromNode(word).value ?? '').filter((value) => value.startsWith('-')).join('');
  return args.some((word) => {
    const value = wordFromNode(word).value;
    if (value !== null && value.startsWith('-')) return false;
    if (value !== null && value.includes('=') && /[ni]/.test(flags) && !harmlessValue(value.slice(value.indexOf('=') + 1))) return true;
    return value !== null && value.includes('[') ? nameWordRunsCode(word, tainted, false) : false;
  });
}

/** True when evaluating an expansion (`${x@P}`, `${!x}`, `${s:x}`, `${a[x]}`) may run code. */
function expansionRunsCode(node: Node, tainted: ReadonlySet<string>): boolean {
  const tokens = node.children.map((child) => child.type);
  const variable = node.children.find((child) => child.type === 'variable_name');
  const taintedVariable = variable !== undefined && tainted.has(variable.text);
  if (tokens.includes('@') && tokens.includes('P')) return taintedVariable || variable === undefined;
  if (tokens[1] === '!') return taintedVariable || variable === undefined;
  // `${s:offset:length}`: both numbers are arithmetic.
  const colon = tokens.indexOf(':');
  if (colon !== -1) return node.children.slice(colon + 1).some((child) => child.isNamed && arithmeticRunsCode(child, tainted));
  return false;
}

/** True when the tree makes bash evaluate text as code that the walk does not see (see the module comment). */
export function runsEvaluatedText(root: Node, tainted: ReadonlySet<string>): boolean {
  // `declare -i n; n='a[$(…)]'`: every later assignment to an integer variable is arithmetic.
  const integers = new Set<string>();
  eachNode(root, (node) => {
    if (node.type !== 'declaration_command' || !node.children.some((child) => child.type === 'word' && /^-[a-zA-Z]*i/.test(child.text))) return;
    for (const child of node.namedChildren) {
      if (child.type === 'variable_name') integers.add(child.text);
      if (child.type === 'variable_assignment') integers.add(child.childForFieldName('name')?.text ?? '');
    }
  });
  let runs = false;
  eachNode(root, (node) => {
    if (runs) return;
    switch (node.type) {
      case 'variable_assignment': {
        const name = node.childForFieldName('name');
        const value = node.childForFieldName('value');
        const text = value ? wordFromNode(value).value : '';
        if (name && integers.has(name.text) && (text === null || !harmlessValue(text))) runs = true;
        return;
      }
      case 'arithmetic_expansion':
        runs = arithmeticRunsCode(node, tainted);
        return;
      case 'c_style_for_statement':
        // The three expressions, not the loop's body (walked as commands of its own).
        runs = node.children.some((child) => child.isNamed && child.field !== 'body' && arithmeticRunsCode(child, tainted));
        return;
      case 'compound_statement':
        if (node.children[0]?.type === '((') runs = arithmeticRunsCode(node, tainted);
        return;
      case 'subscript': {
        const index = node.childForFieldName('index');
        if (index) runs = arithmeticRunsCode(index, tainted);
        return;
      }
      case 'binary_expression': {
        const operator = node.children.find((child) => child.type === 'test_operator');
        const test = node.parent;
        if (operator && ARITHMETIC_TEST_OPERATORS.has(operator.text) && test?.type === 'test_command' && test.children[0]?.type === '[[') runs = arithmeticRunsCode(node, tainted);
        return;
      }
      case 'unary_expression': {
        // `[[ -v 'a[$(…)]' ]]` resolves its operand as a name.
        const operator = node.children.find((child) => child.type === 'test_operator');
        const operand = node.namedChildren.find((child) => child.type !== 'test_operator');
        if (operator?.text === '-v' && operand) runs = nameWordRunsCode(operand, tainted, false);
        return;
      }
      case 'expansion':
        runs = expansionRunsCode(node, tainted);
        return;
      case 'command':
        runs = builtinRunsCode(node, tainted);
        return;
      case 'declaration_command': {
        const flags = node.children.filter((child) => child.type === 'word' && child.text.startsWith('-')).map((child) => child.text).join('');
        for (const child of node.namedChildren) {
          if (runs) return;
          if (child.type === 'variable_assignment' && /[ni]/.test(flags)) {
            const value = child.childForFieldName('value');
            const text = value ? wordFromNode(value).value : '';
            if (text === null || !harmlessValue(text)) runs = true;
          } else if (child.type === 'raw_string' || child.type === 'string' || child.type === 'concatenation') {
            runs = nameWordRunsCode(child, tainted, false) || (/[ni]/.test(flags) && child.text.includes('='));
          }
        }
        return;
      }
    }
  });
  return runs;
}
