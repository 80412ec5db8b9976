import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import type { HonestyRow } from '../../src/adapters/honesty-matrix.js';

/**
 * TRUTH-2: what a honesty-matrix row's `testedBy` points at, read from the cited test's source with
 * the TypeScript parser — whether the test exists, whether it can be skipped, which transport and
 * mode its titles name, and whether it runs against a stand-in for the transport's runtime — and the
 * rules a row must meet given that.
 */

const root = join(import.meta.dirname, '..', '..');

/** How a test of one transport's own runtime is recognised: its file is that transport's, or a title names it. */
const TRANSPORT_SUBJECTS: Readonly<Record<string, { file: RegExp; title: RegExp }>> = {
  builtin: { file: /^test\/(harness|tools|worktree|services)\//, title: /\bbuilt-in\b/i },
  'claude-code': { file: /^test\/adapters\/claude-code-/, title: /\bClaude Code\b/ },
  'claude-agent-sdk': { file: /^test\/adapters\/claude-agent-sdk[-.]/, title: /\bClaude Agent SDK\b/ },
  deepseek: { file: /^test\/adapters\/deepseek[-.]/, title: /\bDeepSeek\b/ },
  codex: { file: /^test\/adapters\/codex[-.]/, title: /\bCodex\b/ },
  acp: { file: /^test\/adapters\/acp[-.]/, title: /\bACP\b/ },
  copilot: { file: /^test\/adapters\/copilot(?!-extension)[-.]/, title: /\bCopilot (?!extension)/ },
  'copilot-extension': { file: /^test\/adapters\/copilot-extension[-.]/, title: /\bCopilot extension\b/ },
  grok: { file: /^test\/adapters\/grok\//, title: /\bGrok\b/ },
  cursor: { file: /^test\/adapters\/cursor\//, title: /\bCursor\b/ },
  'openai-image': { file: /^test\/adapters\/openai-image[-.]/, title: /\bOpenAI Image\b/ },
};

/** The words that name a mode in a test title; chat is run as the Agent, Ask and Autopilot relay modes. */
const MODE_WORDS: Readonly<Record<string, RegExp>> = {
  chat: /\b(chat|agent|ask|autopilot)\b/,
  plan: /\bplan\b/,
  review: /\breview\b/,
  orchestrate: /\borchestrate\b/,
};

/**
 * Support modules that stand in for a transport's runtime (not for the model, which every test
 * scripts): a test that imports one, directly or through other support files, runs against a fake.
 */
const RUNTIME_STAND_INS = ['test/support/fake-acp-fixture.ts', 'test/support/fake-acp-agent.mjs', 'test/support/fake-cursor-sdk.ts'];

/** The modifiers a test or describe can carry that keep it from running. */
const NEVER_RUNS = new Set(['skip', 'todo']);
const MAY_NOT_RUN = new Set(['skipIf', 'runIf']);

interface Declaration {
  kind: 'describe' | 'test';
  title: string;
  /** `skip`, `todo`, `skipIf`, `runIf`, `each`, `concurrent`…; empty for a plain call. */
  modifiers: string[];
  /** The source of a `skipIf`/`runIf` condition. */
  condition: string | null;
  body: ts.Node | null;
}

/** What a `testedBy` names, found in the source, with what the rules need to know about it. */
export interface CitedTest {
  file: string;
  describes: Declaration[];
  test: Declaration;
  source: ts.SourceFile;
}

function declarationOf(call: ts.CallExpression, source: ts.SourceFile): Declaration | null {
  const modifiers: string[] = [];
  let condition: string | null = null;
  let callee: ts.Expression = call.expression;
  // describe.skipIf(cond)('title', …): the callee is itself a call.
  while (ts.isCallExpression(callee) || ts.isPropertyAccessExpression(callee)) {
    if (ts.isCallExpression(callee)) {
      const inner = callee.expression;
      if (ts.isPropertyAccessExpression(inner) && MAY_NOT_RUN.has(inner.name.text)) condition = callee.arguments[0]?.getText(source) ?? null;
      callee = inner;
    } else {
      modifiers.unshift(callee.name.text);
      callee = callee.expression;
    }
  }
  if (!ts.isIdentifier(callee)) return null;
  const kind = callee.text === 'describe' ? 'describe' : callee.text === 'it' || callee.text === 'test' ? 'test' : null;
  if (!kind) return null;
  const first = call.arguments[0];
  if (!first || !(ts.isStringLiteral(first) || ts.isNoSubstitutionTemplateLiteral(first))) return null;
  const body = call.arguments.find((argument) => ts.isArrowFunction(argument) || ts.isFunctionExpression(argument)) ?? null;
  return { kind, title: first.text, modifiers, condition, body };
}

/** `file > describe > it` → the declarations, or why the citation does not name a test. */
export function locateCitedTest(testedBy: string): CitedTest | string {
  const [file, describeTitle, ...rest] = testedBy.split(' > ');
  const testTitle = rest.join(' > ');
  if (!file || !describeTitle || !testTitle) return `malformed: ${testedBy}`;
  const path = join(root, file);
  if (!existsSync(path)) return `no file ${file}`;
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: CitedTest[] = [];
  const visit = (node: ts.Node, describes: Declaration[]) => {
    if (ts.isCallExpression(node)) {
      const declared = declarationOf(node, source);
      if (declared?.kind === 'describe') {
        for (const child of node.arguments) ts.forEachChild(child, (inner) => visit(inner, [...describes, declared]));
        return;
      }
      if (declared?.kind === 'test' && declared.title === testTitle && describes.some((describe) => describe.title === describeTitle)) found.push({ file, describes, test: declared, source });
    }
    ts.forEachChild(node, (child) => visit(child, describes));
  };
  visit(source, []);
  if (found.length === 0) return `no test '${testTitle}' inside describe '${describeTitle}' in ${file}`;
  if (found.length > 1) return `${found.length} tests '${testTitle}' inside describe '${describeTitle}' in ${file}`;
  return found[0]!;
}

/** True when the condition only asks whether this host has a working bubblewrap (`!probe.available`, probe from probeBubblewrap()). */
function skipsOnlyWithoutBubblewrap(condition: string | null, modifier: string, source: ts.SourceFile): boolean {
  const probe = condition?.match(modifier === 'skipIf' ? /^!\s*(\w+)\.available$/ : /^(\w+)\.available$/)?.[1];
  return probe !== undefined && new RegExp(`\\b${probe}\\s*=\\s*await\\s+probeBubblewrap\\(\\)`).test(source.text);
}

/** Statements at the top of a test body that end it before its assertions (`if (…) return`), or a `ctx.skip()`. */
function silentExits(body: ts.Node | null, source: ts.SourceFile): string[] {
  if (!body || !(ts.isArrowFunction(body) || ts.isFunctionExpression(body)) || !ts.isBlock(body.body)) return [];
  const exits: string[] = [];
  for (const statement of body.body.statements) {
    if (ts.isIfStatement(statement) && containsReturn(statement.thenStatement)) exits.push(statement.getText(source).split('\n')[0]!);
  }
  const walk = (node: ts.Node) => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'skip') exits.push(node.getText(source));
    ts.forEachChild(node, walk);
  };
  walk(body);
  return exits;
}

function containsReturn(node: ts.Node): boolean {
  if (ts.isReturnStatement(node)) return true;
  if (ts.isFunctionLike(node)) return false;
  return ts.forEachChild(node, containsReturn) ?? false;
}

/** Why the cited test may not run on a host where the row holds (empty when it always runs there). */
export function skipProblems(cited: CitedTest, row: HonestyRow): string[] {
  const problems: string[] = [];
  for (const declaration of [...cited.describes, cited.test]) {
    for (const modifier of declaration.modifiers) {
      if (NEVER_RUNS.has(modifier)) problems.push(`${declaration.kind} '${declaration.title}' is .${modifier}: it never runs`);
      else if (MAY_NOT_RUN.has(modifier) && !(row.host === 'bubblewrap' && skipsOnlyWithoutBubblewrap(declaration.condition, modifier, cited.source)))
        problems.push(`${declaration.kind} '${declaration.title}' is .${modifier}(${declaration.condition}): it may not run where the row claims ${row.level}`);
    }
  }
  for (const exit of silentExits(cited.test.body, cited.source)) problems.push(`test '${cited.test.title}' can end without asserting: ${exit}`);
  return problems;
}

/** Whether the cited test (its file or a title on its path) names `adapterId`'s transport. */
export function namesTransport(cited: CitedTest, adapterId: string): boolean {
  const subject = TRANSPORT_SUBJECTS[adapterId];
  if (!subject) return false;
  return subject.file.test(cited.file) || [...cited.describes, cited.test].some((declaration) => subject.title.test(declaration.title));
}

/** Whether a title on the cited test's path names `mode`. */
export function namesMode(cited: CitedTest, mode: string): boolean {
  const words = MODE_WORDS[mode];
  return words !== undefined && [...cited.describes, cited.test].some((declaration) => words.test(declaration.title));
}

function relativeImports(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((match) => match[1]!);
  return specifiers.flatMap((specifier) => {
    const target = relative(root, resolve(dirname(join(root, file)), specifier));
    const candidates = [target, target.replace(/\.js$/, '.ts')];
    const existing = candidates.find((candidate) => existsSync(join(root, candidate)));
    return existing && existing.startsWith('test/') ? [existing] : [];
  });
}

/** The runtime stand-in the cited test's file reaches through its imports, or null when it runs the real runtime. */
export function runtimeStandIn(cited: CitedTest): string | null {
  const seen = new Set<string>([cited.file]);
  const queue = [cited.file];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const imported of relativeImports(file)) {
      if (RUNTIME_STAND_INS.includes(imported)) return imported;
      if (!seen.has(imported)) {
        seen.add(imported);
        queue.push(imported);
      }
    }
  }
  return null;
}

/**
 * Every way one row breaks TRUTH-2: its test does not exist or may not run; an ✅ whose test is not
 * of that transport, or (for a per-mode row) not in that mode; a row proven against a stand-in for
 * the runtime that claims ✅ or does not say it was tested against a fake.
 */
export function citationProblems(adapterId: string, row: HonestyRow): string[] {
  const where = `${adapterId}: '${row.capability}'${row.mode ? ` in ${row.mode}` : ''}`;
  const cited = locateCitedTest(row.testedBy);
  if (typeof cited === 'string') return [`${where}: ${cited}`];
  const problems = skipProblems(cited, row);
  const standIn = runtimeStandIn(cited);
  if (standIn) {
    if (row.level === 'enforced') problems.push(`is enforced but its test runs against a stand-in (${standIn}), not the runtime`);
    if (!/tested against a fake/i.test(row.detail)) problems.push(`its test runs against a stand-in (${standIn}) and the detail does not say "tested against a fake"`);
  }
  if (row.level === 'enforced') {
    if (!namesTransport(cited, adapterId)) problems.push(`is enforced but cites a test that is not ${adapterId}'s (neither its file nor a title names that transport)`);
    if (row.mode && !namesMode(cited, row.mode)) problems.push(`is enforced in ${row.mode} but cites a test whose titles name no run in that mode`);
  }
  return problems.map((problem) => (problem.startsWith(where) ? problem : `${where} ${problem}`));
}
