import { z } from 'zod';
import { defineTool, ok } from './define-tool.js';

/** The key of the todo list in {@link ToolContext.runState}. */
export const TODO_STATE_KEY = 'todo';

export const TodoItem = z.object({
  content: z.string().min(1).describe('What to do, in a few words.'),
  status: z.enum(['pending', 'in_progress', 'completed']).describe('pending, in_progress (one at a time) or completed.'),
});
export type TodoItem = z.infer<typeof TodoItem>;

export const TodoInput = z.object({
  todos: z.array(TodoItem).max(100).optional().describe('The whole new list, replacing the old one. Omit to read the current list.'),
});
export type TodoInput = z.infer<typeof TodoInput>;

const MARK: Readonly<Record<TodoItem['status'], string>> = { pending: '[ ]', in_progress: '[~]', completed: '[x]' };

/** The run's current todo list (empty when none was written). */
export function currentTodos(runState: Map<string, unknown>): TodoItem[] {
  const stored = runState.get(TODO_STATE_KEY);
  return Array.isArray(stored) ? (stored as TodoItem[]) : [];
}

/**
 * `todo`: the run's own checklist. Read tier with no effects: it writes only the run's in-memory
 * scratch state, not the worktree and not a Control Center record, so it belongs in every mode.
 */
export const todoTool = defineTool({
  name: 'todo',
  description: 'Keep a todo list for this run: pass the whole list to replace it, or nothing to read it back. Mark one item in_progress at a time.',
  parameters: TodoInput,
  tier: 'read',
  effects: [],
  group: 'planning',
  async execute(input, context) {
    if (input.todos) context.runState.set(TODO_STATE_KEY, input.todos.map((item) => ({ ...item })));
    const todos = currentTodos(context.runState);
    if (todos.length === 0) return ok('The todo list is empty.', { todos });
    const done = todos.filter((item) => item.status === 'completed').length;
    const lines = todos.map((item, index) => `${index + 1}. ${MARK[item.status]} ${item.content}`);
    return ok(`${lines.join('\n')}\n(${done}/${todos.length} completed)`, { todos });
  },
});
