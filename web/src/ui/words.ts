/**
 * Words a user understands (UI): the one place where internal names — effect classes (POL-2),
 * run and plan states, approval kinds, liveness, policy scopes — become plain English. Components
 * never print an internal identifier directly; an unknown value is turned into spaced lower-case
 * words rather than shown raw ("fooBar" → "foo bar").
 */

/** "fileWriteOutsideWorktree" → "file write outside worktree" (the fallback for names not listed). */
export function spacedWords(value: string): string {
  return value
    .replace(/[_-]+/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .trim();
}

const EFFECT_WORDS: Record<string, string> = {
  fileDelete: 'deletes files',
  fileWriteOutsideWorktree: 'writes outside the project',
  gitCommit: 'makes a git commit',
  gitPush: 'pushes to a remote',
  prCreate: 'opens a pull request',
  prPublish: 'publishes a pull request',
  vendorSyncWrite: 'writes to an outside service',
  networkEgress: 'uses the network',
  secretAccess: 'reads secrets',
  packageInstall: 'installs packages',
  processSpawn: 'starts programs',
  workspaceMutation: 'changes workspace settings',
  sandboxControl: 'changes the sandbox',
};

/** Every effect class (POL-2) the words know, in the order a rule form lists them. */
export const EFFECT_KINDS: readonly string[] = Object.keys(EFFECT_WORDS);

/** An effect class (POL-2) as what the action does. */
export function effectWord(effect: string): string {
  return EFFECT_WORDS[effect] ?? spacedWords(effect);
}

const RUN_STATE_WORDS: Record<string, string> = {
  queued: 'waiting to start',
  running: 'running',
  completed: 'finished',
  failed: 'failed',
  cancelled: 'stopped',
};

export function runStateWord(state: string): string {
  return RUN_STATE_WORDS[state] ?? spacedWords(state);
}

const PLAN_STATUS_WORDS: Record<string, string> = {
  proposed: 'waiting for approval',
  approved: 'approved',
  rejected: 'rejected',
  superseded: 'replaced by a newer version',
  executing: 'running',
  completed: 'finished',
  failed: 'failed',
  cancelled: 'stopped',
};

export function planStatusWord(status: string): string {
  return PLAN_STATUS_WORDS[status] ?? spacedWords(status);
}

const NODE_STATE_WORDS: Record<string, string> = {
  pending: 'not started',
  ready: 'ready',
  running: 'running',
  done: 'done',
  failed: 'failed',
  cancelled: 'stopped',
  blocked: 'blocked',
  queued: 'queued',
  skipped: 'skipped',
};

export function nodeStateWord(state: string): string {
  return NODE_STATE_WORDS[state] ?? spacedWords(state);
}

const LIVENESS_WORDS: Record<string, string> = {
  ok: 'fine',
  blocked: 'waiting for you',
  stalled: 'silent for a while',
  looping: 'repeating itself',
  failed: 'failed',
  dead: 'stopped responding',
};

export function livenessWord(liveness: string): string {
  return LIVENESS_WORDS[liveness] ?? spacedWords(liveness);
}

const APPROVAL_KIND_WORDS: Record<string, string> = {
  tool: 'Action',
  plan_exit: 'Leave plan mode',
  plan: 'Plan',
  orchestration: 'Orchestration',
  // The operator's own review going out to a pull request (FORGE_PUBLISH_APPROVAL on the server).
  forgePublish: 'Publish review to pull request',
  // A conversation's branch pushed and its pull request opened or updated: one approval for both (CONVERSATION_PUBLISH_APPROVAL).
  conversationPublish: 'Publish pull request',
};

export function approvalKindWord(kind: string): string {
  return APPROVAL_KIND_WORDS[kind] ?? spacedWords(kind);
}

const SCOPE_WORDS: Record<string, string> = {
  operator: 'your earlier choice',
  remembered: 'a remembered choice',
  conversation: 'a rule of this conversation',
  space: 'a rule of this space',
  agent: "a rule of this agent",
  workspace: 'a workspace rule',
  mode: 'the mode',
  pinned: 'a fixed rule of the mode',
  autonomy: 'the autonomy setting',
  default: 'the built-in default',
  builtin: 'the built-in default',
  guard: 'a built-in safety rule',
};

/** The policy scope that decided a tool call (POL-3), as a phrase: "allowed by a workspace rule". */
export function scopeWord(scope: string): string {
  return SCOPE_WORDS[scope] ?? spacedWords(scope);
}

const SKILL_VERDICT_WORDS: Record<string, string> = {
  pass: 'passed the scan',
  warn: 'passed with warnings',
  quarantine: 'installed by operator override',
};

/** A scan verdict of an installed skill, as the skill picker shows it (SKL-3). */
export function skillVerdictWord(verdict: string): string {
  return SKILL_VERDICT_WORDS[verdict] ?? spacedWords(verdict);
}

const AUTONOMY_WORDS: Record<string, { label: string; explains: string }> = {
  proposeOnly: { label: 'Propose only', explains: 'The agent only proposes: it changes nothing, every action is shown to you as a suggestion.' },
  askFirst: { label: 'Ask first', explains: 'The agent asks before anything that changes files or runs commands.' },
  actWithApproval: { label: 'Act with approval', explains: 'The agent works on its own and asks you before risky actions (deleting, pushing, installing…).' },
  actFreely: { label: 'Act freely', explains: 'The agent acts without asking, except for what a rule denies.' },
};

/** An autonomy level (POL-5) as its name on the dial. */
export function autonomyWord(level: string): string {
  return AUTONOMY_WORDS[level]?.label ?? spacedWords(level);
}

/** What an autonomy level lets the agent do, in one sentence. */
export function autonomyExplained(level: string): string {
  return AUTONOMY_WORDS[level]?.explains ?? '';
}

const DECISION_WORDS: Record<string, string> = { allow: 'allowed', ask: 'asks you first', deny: 'refused' };

/** A policy decision (POL-3): "allowed", "asks you first", "refused". */
export function decisionWord(decision: string): string {
  return DECISION_WORDS[decision] ?? spacedWords(decision);
}

const FIELD_WORDS: Record<string, string> = {
  body: 'Request',
  text: 'Message',
  title: 'Title',
  name: 'Name',
  scopeId: 'Scope',
  scope: 'Scope',
  match: 'Rule',
  'match.prefix': 'Command',
  'match.effectClass': 'Action kind',
  command: 'Command',
  decision: 'Decision',
  runId: 'Run',
  planId: 'Plan',
  ruleId: 'Rule',
  spaceId: 'Space',
  conversationId: 'Conversation',
  agentId: 'Agent',
  autonomy: 'Autonomy',
  mode: 'Mode',
  picker: 'Mode',
  systemPrompt: 'Agent instructions',
  reportsTo: 'Reports to',
  adapterId: 'Adapter',
};

/** The field an error names, as the label a user sees ("scopeId" → "Scope", "skills.2" → "Skills, item 3"). */
export function fieldWord(field: string): string {
  if (FIELD_WORDS[field]) return FIELD_WORDS[field];
  const item = /^(.*)\.(\d+)$/.exec(field);
  if (item) return `${fieldWord(item[1]!)}, item ${Number(item[2]) + 1}`;
  const words = spacedWords(field.split('.').pop() ?? field);
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const TICKET_STATUS_WORDS: Record<string, string> = {
  open: 'open',
  inProgress: 'in progress',
  blocked: 'blocked',
  done: 'done',
  failed: 'failed',
  cancelled: 'cancelled',
};

/** Tickets board columns (ORC-4 tickets, CAP-3). */
export function ticketStatusWord(status: string): string {
  return TICKET_STATUS_WORDS[status] ?? spacedWords(status);
}

/** What a pipeline node type does, in a few words (PIPE-1). */
const PIPELINE_NODE_TYPE_WORDS: Record<string, string> = {
  'messaging.createSpace': 'opens a room',
  promptAgent: 'agent prompt',
  'team.dispatch': 'team dispatch',
  'human.gate': 'your approval',
  condition: 'condition',
  bashScript: 'script',
  ticketWork: 'ticket work',
  synthesis: 'synthesis',
};

export function pipelineNodeTypeWord(type: string): string {
  return PIPELINE_NODE_TYPE_WORDS[type] ?? spacedWords(type);
}

const FINDING_STATUS_WORDS: Record<string, string> = {
  open: 'open',
  consensusReady: 'agreed, ready to confirm',
  contested: 'contested',
  dismissed: 'dismissed',
  resolved: 'resolved',
};

/** A review finding's status (REV-2), as the finding and the status filter show it. */
export function findingStatusWord(status: string): string {
  return FINDING_STATUS_WORDS[status] ?? spacedWords(status);
}

const SCAN_RULE_WORDS: Record<string, string> = {
  'base64-blob': 'a long encoded blob',
  'binary-file': 'a binary file',
  'decode-and-run': 'decodes something and runs it',
  'destructive-delete': 'deletes destructively',
  'dynamic-eval': 'evaluates code built at run time',
  'executable-bit': 'an executable file',
  'hidden-html-comment': 'a hidden HTML comment',
  'invisible-characters': 'invisible characters',
  'pipe-to-shell': 'pipes a download into a shell',
  'prompt-injection': 'tries to override the instructions',
  'secret-exfiltration': 'sends secrets away',
  'symlink-escape': 'a link pointing outside the skill',
};

/** What a skill scan rule (SKL-3) found, in words: the rule's id is for the scanner, not for people. */
export function scanRuleWord(ruleId: string): string {
  return SCAN_RULE_WORDS[ruleId] ?? spacedWords(ruleId);
}

/** Run flags and other values of ours a server statement names, where an effect class or a dial level does not fit. */
const STATED_VALUE_WORDS: Record<string, string> = {
  deliverableFailed: 'as not delivered',
};

/**
 * A technical statement the server makes (the honesty matrix's details), with the values of our own
 * enums it names said in words: "classified gitPush" → "classified “pushes to a remote”", "autonomy
 * askFirst" → "autonomy Ask first", "flagged deliverableFailed" → "flagged as not delivered". Names
 * of other programs (a runner's `agentMode`, a tool's `web_fetch`) stay: they are set as code.
 */
export function statedValuesAsWords(text: string): string {
  return text.replace(/(?<![\w`])[a-z]+(?:[A-Z][a-z0-9]*)+(?![\w`])/g, (word) => {
    if (STATED_VALUE_WORDS[word]) return STATED_VALUE_WORDS[word];
    if (EFFECT_WORDS[word]) return `“${EFFECT_WORDS[word]}”`;
    if (AUTONOMY_WORDS[word]) return AUTONOMY_WORDS[word].label;
    return word;
  });
}
