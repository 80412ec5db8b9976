export { defineTool, ok, fail, type Tool, type ToolContext, type ToolDefinition, type ToolResult, type UserQuestion } from './define-tool.js';
export type { ExecResult, WorktreeOperations } from '../worktree/worktree-operations.js';
export { NodeWorktree, type NodeWorktreeOptions } from '../worktree/node-worktree.js';
export { PathEscapeError, type PathEscapeReason } from '../worktree/path-escape-error.js';
export { sanitizedEnv } from '../sandbox/sanitized-env.js';
export { builtinTools, toolDescriptors, toModelTool, parseToolInput, type ParsedToolInput } from './builtin-tools.js';
export { readTool } from './read-tool.js';
export { listTool } from './list-tool.js';
export { globTool } from './glob-tool.js';
export { grepTool } from './grep-tool.js';
export { writeTool } from './write-tool.js';
export { editTool } from './edit-tool.js';
export { bashTool, BASH_EFFECTS } from './bash-tool.js';
export { todoTool, currentTodos, TODO_STATE_KEY, type TodoItem } from './todo-tool.js';
export { askUserTool } from './ask-user-tool.js';
export { taskTool } from './task-tool.js';
export { globMatcher, globToRegExp, globBase } from '../worktree/glob-pattern.js';
export {
  ensureWorktree,
  removeWorktree,
  checkpointWorktree,
  hasUncommittedChanges,
  listCheckpoints,
  memoryCheckoutRecords,
  syncWorktreeBranch,
  checkoutPushRemotes,
  CHECKPOINT_REF_PREFIX,
  WORKTREE_BRANCH_PREFIX,
  type ConversationWorktree,
  type EnsureWorktreeOptions,
  type RemoveWorktreeOptions,
  type RemovedWorktree,
  type CheckoutRecord,
  type CheckoutRecords,
} from '../git/git-worktrees.js';
export { GitCommandError } from '../git/git-command-error.js';
