/**
 * Plain words for the internal names the terminal shows: effect classes (POL-2), run states and the
 * policy scopes that decided a tool call (POL-3). The same words as the web app's (web/src/ui/words.ts),
 * kept here because the web module cannot be shared both ways: the server's tests import it without the
 * web build's @server alias, and web code may reach server code only through that alias.
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

/** A run state in plain words ("finished", "stopped"). */
export function runStateWord(state: string): string {
  return RUN_STATE_WORDS[state] ?? spacedWords(state);
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
