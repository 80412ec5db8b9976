import { describe, expect, it } from 'vitest';
import { buildToolSurface } from '../../src/core/tool-surface.js';
import { getCapabilityProfile } from '../../src/core/capability-profiles.js';
import { validateToolDescriptor } from '../../src/core/tool-descriptor.js';
import { validateToolRegistry } from '../../src/core/tool-registry.js';
import { builtinTools, parseToolInput, toModelTool, toolDescriptors } from '../../src/tools/builtin-tools.js';
import { editTool } from '../../src/tools/edit-tool.js';
import { readTool } from '../../src/tools/read-tool.js';

describe('builtin tool registry', () => {
  it('holds every built-in tool once', () => {
    expect(builtinTools().map((tool) => tool.name)).toEqual(['read', 'list', 'glob', 'grep', 'web_fetch', 'write', 'edit', 'bash', 'todo', 'ask_user', 'task']);
  });

  // POL-2: a mutating tool that declares nothing fails here, whichever tool it is.
  it.each(builtinTools().map((tool) => [tool.name, tool] as const))('%s passes validateToolDescriptor', (_name, tool) => {
    expect(validateToolDescriptor(tool)).toEqual([]);
  });

  it('passes the registry checks (pinned verbs change nothing, CAP-6)', () => {
    expect(validateToolRegistry(toolDescriptors(builtinTools()))).toEqual([]);
  });

  it('declares tiers honestly: only write and edit write files, only bash executes', () => {
    const byName = new Map(builtinTools().map((tool) => [tool.name, tool]));
    for (const name of ['read', 'list', 'glob', 'grep', 'todo', 'ask_user', 'task']) {
      expect(byName.get(name)).toMatchObject({ tier: 'read', effects: [], writesWorktree: false });
    }
    expect(byName.get('write')).toMatchObject({ tier: 'write', writesWorktree: true });
    expect(byName.get('edit')).toMatchObject({ tier: 'write', writesWorktree: true });
    expect(byName.get('bash')).toMatchObject({ tier: 'execute', writesWorktree: true });
  });

  it('surfaces only read tools in plan mode and everything in chat (HAR-3)', () => {
    const registry = toolDescriptors(builtinTools());
    const plan = buildToolSurface(getCapabilityProfile('plan'), registry).map((tool) => tool.name);
    expect(plan).toEqual(['read', 'list', 'glob', 'grep', 'web_fetch', 'todo', 'ask_user', 'task']);
    expect(buildToolSurface(getCapabilityProfile('chat'), registry)).toHaveLength(11);
  });

  it('projects plain descriptors without schema or execute', () => {
    const [descriptor] = toolDescriptors([readTool]);
    expect(descriptor).toEqual({ name: 'read', description: readTool.description, tier: 'read', effects: [], writesWorktree: false, group: 'files' });
  });
});

describe('toModelTool', () => {
  it('produces a bare JSON object schema from the zod schema', () => {
    const model = toModelTool(editTool);
    expect(model.name).toBe('edit');
    expect(model.description).toBe(editTool.description);
    expect(model.inputSchema).not.toHaveProperty('$schema');
    expect(model.inputSchema).toMatchObject({
      type: 'object',
      required: ['path', 'oldText', 'newText'],
      properties: { path: { type: 'string' }, replaceAll: { type: 'boolean' } },
    });
  });

  it('works for every built-in tool', () => {
    for (const tool of builtinTools()) expect(toModelTool(tool).inputSchema).toMatchObject({ type: 'object' });
  });
});

describe('parseToolInput', () => {
  it('returns the parsed input when valid', () => {
    expect(parseToolInput(readTool, { path: 'a.ts', limit: 5 })).toEqual({ ok: true, input: { path: 'a.ts', limit: 5 } });
  });

  it('returns an isError result naming each bad field', () => {
    const parsed = parseToolInput(editTool, { path: 3, oldText: 'x', replaceAll: 'yes' });
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.result.isError).toBe(true);
    expect(parsed.result.content).toMatch(/^Invalid input for edit:/);
    expect(parsed.result.content).toMatch(/- path: /);
    expect(parsed.result.content).toMatch(/- newText: /);
    expect(parsed.result.content).toMatch(/- replaceAll: /);
    expect(parsed.result.details?.fields).toEqual(['path', 'newText', 'replaceAll']);
  });

  it('names nested fields and a non-object input', () => {
    const askUser = builtinTools().find((tool) => tool.name === 'ask_user');
    if (!askUser) throw new Error('ask_user missing');
    const nested = parseToolInput(askUser, { questions: [{ question: '' }] });
    expect(nested.ok).toBe(false);
    if (!nested.ok) expect(nested.result.content).toMatch(/- questions\.0\.question: /);
    const notObject = parseToolInput(readTool, 'read a.ts');
    expect(notObject.ok).toBe(false);
    if (!notObject.ok) expect(notObject.result.content).toMatch(/- \(input\): /);
  });
});
