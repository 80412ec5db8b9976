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
