/**
 * The pipeline validator's findings in a person's words (PIPE-1, editor). The server's messages are
 * precise for the API ("nodes.0.dependsOn: node a is on a dependency cycle…"); the editor shows each
 * one at the field it names, so the words drop the path and the internal names and say what to change.
 */
import { plainSentence } from '../ui/error-voice.js';

/** One finding as the validate and save routes send it (`issues[]` of their 400). */
export interface PipelineIssueLike {
  field: string;
  message: string;
  code?: string;
}

/** A finding ready to show: where it belongs in the form and what it says. */
export interface PipelineProblem {
  /** Dotted path into the definition (`nodes.1.dependsOn.0`, `triggers.0.cron`, `name`). */
  field: string;
  words: string;
}

/** Drops the `node <key>: ` the save route puts first and the `<path>: ` the validator puts first. */
function bareMessage(issue: PipelineIssueLike): string {
  // A key the validator refused may hold anything, spaces and colons too: cut at the path when it is there.
  const at = issue.field ? issue.message.indexOf(`${issue.field}: `) : -1;
  if (at >= 0) return issue.message.slice(at + issue.field.length + 2);
  // A problem with the definition as a whole has an empty path: its message starts with ": ".
  return issue.message.replace(/^node [^:]*: /, '').replace(/^[\w.]*: /, '');
}

/** What zod's schema messages mean for someone filling in a form. */
function schemaWords(message: string): string {
  if (/^Required$|expected .+, received undefined$/.test(message)) return 'Required.';
  if (/^Too small: expected string/.test(message)) return 'Cannot be empty.';
  if (/^Too small: expected array/.test(message)) return 'Add at least one.';
  const tooBig = /^Too big: expected (?:string|array) to have <=?(\d+)/.exec(message);
  if (tooBig) return `At most ${tooBig[1]}.`;
  const number = /^Too (small|big): expected number to be ([<>]=?)(\d+)/.exec(message);
  if (number) return number[1] === 'small' ? `Must be at least ${number[3]}.` : `Must be at most ${number[3]}.`;
  const unknown = /^Unrecognized keys?: (.+)$/.exec(message);
  if (unknown) return `Not a setting here: ${unknown[1]!.replace(/"/g, '')}.`;
  if (/^Invalid (?:option|input|discriminator)/.test(message)) return 'Choose one of the offered values.';
  if (/expected (?:string|number|boolean|array|object), received/.test(message)) return 'This value has the wrong kind (text, number, list…).';
  return plainSentence(message);
}

/** One finding in plain words (never a camelCase name, an id or a path). */
export function problemWords(issue: PipelineIssueLike): string {
  const message = bareMessage(issue);
  switch (issue.code) {
    case 'unknown_agent':
      return 'This agent is not in this workspace: choose another.';
    case 'cycle': {
      const loop = /cycle: (.+)$/.exec(message)?.[1];
      return loop ? `Depends on goes round in a loop: ${loop}.` : 'Depends on goes round in a loop.';
    }
    case 'duplicate_key':
      return 'Another step already has this name.';
    case 'duplicate_output_key':
      return 'Another step already uses this name for its output.';
    case 'reserved_key':
      return '“trigger” stands for what started the run: choose another name.';
    case 'unknown_dependency': {
      const missing = /unknown node (\S+)$/.exec(message)?.[1];
      return missing ? `There is no step named “${missing}”.` : 'Depends on a step that does not exist.';
    }
    case 'self_dependency':
      return 'A step cannot depend on itself.';
    case 'placeholder_not_upstream': {
      const placeholder = /placeholder (\{\{[^}]*\}\})/.exec(message)?.[1] ?? 'A placeholder';
      const named = /names node (\S+), which is not upstream/.exec(message)?.[1];
      return named ? `${placeholder} uses step “${named}”, which this step does not depend on: add it to Depends on.` : `${placeholder} names no step.`;
    }
    case 'space_from_not_upstream':
      return 'The room must come from a step that opens a room, and this step must depend on it.';
    case 'bad_expression':
      return `The condition cannot be read: ${plainSentence(message.replace(/^expression: /, ''))}`;
    case 'bad_cron':
      return `Not a schedule this server understands (minute hour day month weekday, in UTC): ${plainSentence(message.replace(/^triggers\.\d+\.cron: /, ''))}`;
    case 'bad_output_schema':
      // The part of the schema is JSON Schema's own name for it (code): the sentence says what to do instead.
      if (message.includes('keyword not supported')) return 'The output format uses a keyword the engine cannot check: use type, properties, required, items, enum, const and the minimum and maximum ones.';
      return `The output format is not one the engine can check: ${plainSentence(message)}`;
    case 'mode_ignored': {
      // A look-alike setting (`Mode`, `conversationMode`) is ignored too; the room's mode follows `mode` alone.
      const opensIn = /opens in (\w+)$/.exec(message)?.[1] ?? 'review';
      return message.includes('not a recognised key') ? `Only the room mode setting picks the mode; this one is ignored and the room opens in ${opensIn}.` : `Not a room mode (chat, review or plan): the room opens in ${opensIn}.`;
    }
    default:
      return schemaWords(message);
  }
}

export function toProblems(issues: readonly PipelineIssueLike[]): PipelineProblem[] {
  return issues.map((issue) => ({ field: issue.field === 'body' ? '' : issue.field, words: problemWords(issue) }));
}

/** The problems a form field shows: those at its path or under it (`nodes.1.dependsOn` holds `nodes.1.dependsOn.0`). */
export function problemsAt(problems: readonly PipelineProblem[], field: string): PipelineProblem[] {
  return problems.filter((problem) => problem.field === field || problem.field.startsWith(`${field}.`));
}

const STEP_FIELD_WORDS: Record<string, string> = {
  key: 'Name',
  type: 'Kind',
  title: 'Title',
  agentId: 'Agent',
  prompt: 'Prompt',
  dependsOn: 'Depends on',
  expression: 'Condition',
  script: 'Script',
  name: 'Room name',
  extras: 'Room mode',
  memberAgentIds: 'Room members',
  spaceFrom: 'Works in the room of',
  teamId: 'Team',
  strategy: 'How the team works',
  ticketId: 'Ticket',
  outputKey: 'Output name',
  outputSchema: 'Output format',
  retries: 'Retries',
  timeoutMs: 'Time limit',
};

/** Where a problem is, for the list beside the text view: "Step research · Depends on", "Trigger 1 · Schedule". */
export function problemPlace(field: string, stepNames: readonly string[]): string {
  const step = /^nodes\.(\d+)(?:\.(\w+))?/.exec(field);
  if (step) {
    const index = Number(step[1]);
    const name = stepNames[index] ? `Step “${stepNames[index]}”` : `Step ${index + 1}`;
    return step[2] ? `${name} · ${STEP_FIELD_WORDS[step[2]] ?? 'Settings'}` : name;
  }
  const trigger = /^triggers\.(\d+)/.exec(field);
  if (trigger) return `Trigger ${Number(trigger[1]) + 1}`;
  if (field === 'name') return 'Name';
  if (field === 'description') return 'Description';
  if (field === 'nodes') return 'Steps';
  return 'Pipeline';
}
