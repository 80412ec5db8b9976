import { PULL_REQUEST_BODY_MAX, PULL_REQUEST_TITLE_MAX } from '../../schemas/publish.js';

/** One changed file as `git diff --numstat` counts it (null counts: a binary file). */
export interface ChangedFile {
  path: string;
  added: number | null;
  removed: number | null;
}

/** A command the conversation's agents ran that looks like running tests, and how it ended. */
export interface TestCommand {
  command: string;
  outcome: 'passed' | 'failed' | 'not run';
}

/** What a pull request's title and body are written from (CHG-2). */
export interface ConversationFacts {
  conversationTitle: string;
  /** The conversation's first operator message: what was asked. */
  goal: string | null;
  plan: { goal: string; steps: string[] } | null;
  files: ChangedFile[];
  tests: TestCommand[];
  /** Review gates that ran on the branch's head, when a review of it recorded them. */
  gates: Array<{ name: string; status: string }>;
  review: { verdict: string; headline: string | null; round: number } | null;
}

const MAX_FILES_LISTED = 50;
const MAX_TESTS_LISTED = 10;

/** One line, at most `max` characters: titles and list items never carry a line break or a control character (an agent named the files). */
function oneLine(text: string, max: number): string {
  // eslint-disable-next-line no-control-regex -- replacing control characters is the point
  const flat = text.replace(/[\s\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Markdown inline code that the text cannot break out of (a backtick in it widens the fence). */
function inlineCode(text: string): string {
  const flat = oneLine(text, 200);
  const fence = flat.includes('`') ? '``' : '`';
  return `${fence}${fence === '``' ? ' ' : ''}${flat}${fence === '``' ? ' ' : ''}${fence}`;
}

/**
 * The pull request's title: the conversation's title, or else the start of its goal. Written text,
 * never sent anywhere but as the JSON value of the forge's `title` field.
 */
export function pullRequestTitle(facts: ConversationFacts): string {
  const source = facts.conversationTitle.trim() !== '' ? facts.conversationTitle : (facts.goal ?? 'Changes from a Control Center conversation');
  return oneLine(source, PULL_REQUEST_TITLE_MAX) || 'Changes from a Control Center conversation';
}

/**
 * The pull request's body in Markdown: the goal, the plan, what changed (file stats), the tests that
 * ran and the review's verdict — each section only when the conversation recorded it. Bounded to the
 * forge's limit; agents' words are quoted as text, never turned into links or markup of our making.
 */
export function pullRequestBody(facts: ConversationFacts): string {
  const sections: string[] = [];
  if (facts.goal) sections.push(`## Goal\n\n${facts.goal.trim().split('\n').map((line) => `> ${line}`).join('\n')}`);
  if (facts.plan) {
    const steps = facts.plan.steps.map((step, index) => `${index + 1}. ${oneLine(step, 200)}`).join('\n');
    sections.push(`## Plan\n\n${oneLine(facts.plan.goal, 500)}${steps ? `\n\n${steps}` : ''}`);
  }
  const added = facts.files.reduce((sum, file) => sum + (file.added ?? 0), 0);
  const removed = facts.files.reduce((sum, file) => sum + (file.removed ?? 0), 0);
  const listed = facts.files.slice(0, MAX_FILES_LISTED).map((file) => `- ${inlineCode(file.path)} ${file.added === null ? '(binary)' : `+${file.added} −${file.removed}`}`);
  if (facts.files.length > MAX_FILES_LISTED) listed.push(`- … and ${facts.files.length - MAX_FILES_LISTED} more`);
  sections.push(`## What changed\n\n${facts.files.length} file(s), +${added} −${removed}${listed.length > 0 ? `\n\n${listed.join('\n')}` : ''}`);
  const testLines = [
    ...facts.gates.map((gate) => `- gate ${inlineCode(gate.name)}: ${gate.status}`),
    ...latestPerCommand(facts.tests).slice(-MAX_TESTS_LISTED).map((test) => `- ${inlineCode(test.command)}: ${test.outcome}`),
  ];
  sections.push(`## Tests run\n\n${testLines.length > 0 ? testLines.join('\n') : 'None recorded in the conversation.'}`);
  if (facts.review) {
    sections.push(`## Review\n\nVerdict: **${facts.review.verdict}** (round ${facts.review.round})${facts.review.headline ? ` — ${oneLine(facts.review.headline, 300)}` : ''}`);
  }
  sections.push('_Opened from a Control Center conversation._');
  const body = sections.join('\n\n');
  return body.length > PULL_REQUEST_BODY_MAX ? `${body.slice(0, PULL_REQUEST_BODY_MAX - 2)}\n…` : body;
}

/** Each command once, with how it ended the last time it ran (a suite run again after a fix counts as passed). */
function latestPerCommand(tests: readonly TestCommand[]): TestCommand[] {
  const last = new Map<string, TestCommand>();
  for (const test of tests) {
    last.delete(test.command);
    last.set(test.command, test);
  }
  return [...last.values()];
}

/** Commands that run a project's tests, as agents usually type them. */
const TEST_COMMAND = /(^|[\s;&|(])(npm (run )?test|npx (vitest|jest|mocha)|vitest|jest|pytest|python3? -m (pytest|unittest)|go test|cargo test|mvn test|gradle test|make (check|test)|yarn test|pnpm test|bun test|dotnet test|rspec|phpunit)\b/;

/** Whether a shell command looks like a test run. */
export function looksLikeTestCommand(command: string): boolean {
  return TEST_COMMAND.test(command);
}
