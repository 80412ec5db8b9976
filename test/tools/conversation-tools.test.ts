import { describe, expect, it, vi } from 'vitest';
import { askUserTool } from '../../src/tools/ask-user-tool.js';
import { taskTool } from '../../src/tools/task-tool.js';
import { TODO_STATE_KEY, todoTool } from '../../src/tools/todo-tool.js';
import { makeContext } from '../support/tool-test-support.js';

describe('ask_user', () => {
  it('asks through context.askUser and returns the answers', async () => {
    const askUser = vi.fn(async () => ['Postgres', '']);
    const context = makeContext('/tmp', { askUser });
    const questions = [{ question: 'Which database?', options: ['SQLite', 'Postgres'] }, { question: 'Anything else?' }];
    const result = await askUserTool.execute({ questions }, context);
    expect(askUser).toHaveBeenCalledWith(questions, context.signal);
    expect(result).toMatchObject({ isError: false, details: { answers: ['Postgres', ''] } });
    expect(result.content).toBe('Q: Which database?\nA: Postgres\n\nQ: Anything else?\nA: (no answer)');
  });

  it('fails without a conversation to ask in (PLAN-4)', async () => {
    const result = await askUserTool.execute({ questions: [{ question: 'Proceed?' }] }, makeContext('/tmp'));
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/ask_user needs a conversation/);
    expect(result.content).toMatch(/PLAN-4/);
  });

  it('is never a yes when the run is cancelled while waiting', async () => {
    const controller = new AbortController();
    const askUser = (_questions: unknown, signal: AbortSignal) =>
      new Promise<string[]>((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
    const pending = askUserTool.execute({ questions: [{ question: 'Delete it?' }] }, makeContext('/tmp', { askUser, signal: controller.signal }));
    controller.abort();
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/not answered/);
  });
});

describe('todo', () => {
  it('keeps the list in run state and returns it', async () => {
    const context = makeContext('/tmp');
    const written = await todoTool.execute(
      { todos: [{ content: 'read code', status: 'completed' }, { content: 'fix bug', status: 'in_progress' }, { content: 'test', status: 'pending' }] },
      context,
    );
    expect(written.content).toBe('1. [x] read code\n2. [~] fix bug\n3. [ ] test\n(1/3 completed)');
    expect(context.runState.get(TODO_STATE_KEY)).toHaveLength(3);
    const readBack = await todoTool.execute({}, context);
    expect(readBack.content).toBe(written.content);
    expect((await todoTool.execute({}, makeContext('/tmp'))).content).toBe('The todo list is empty.');
  });
});

describe('task', () => {
  it('runs a subagent through context.runSubagent', async () => {
    const runSubagent = vi.fn(async () => ({ content: 'found 3 call sites', isError: false }));
    const context = makeContext('/tmp', { runSubagent });
    const result = await taskTool.execute({ description: 'find call sites', prompt: 'Find every caller of foo()' }, context);
    expect(runSubagent).toHaveBeenCalledWith({ description: 'find call sites', prompt: 'Find every caller of foo()' }, context.signal);
    expect(result).toEqual({ content: 'found 3 call sites', isError: false });
  });

  it('fails where subagents are not available', async () => {
    const result = await taskTool.execute({ description: 'x', prompt: 'y' }, makeContext('/tmp'));
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/task needs subagents/);
  });
});
