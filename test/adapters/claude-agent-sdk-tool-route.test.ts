import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { looksLikePlan } from '../../src/adapters/claude-agent-sdk/claude-agent-sdk-transport.js';
import { sdkModeOptions } from '../../src/adapters/claude-agent-sdk/relay-mode-options.js';
import { routeSdkTool } from '../../src/adapters/claude-agent-sdk/tool-route.js';

const context = { worktreePath: '/w/tree', readOnly: false, surfacedTools: ['submit_plan', 'ask_user'] };

describe('routeSdkTool (POL-1, RLY-7)', () => {
  it('sends commands and native writes to the gate, resolving relative paths against the worktree', () => {
    expect(routeSdkTool('Bash', { command: 'ls' }, context)).toEqual({ kind: 'gate', action: { kind: 'command', command: 'ls', toolName: 'Bash' } });
    expect(routeSdkTool('Write', { file_path: 'a/b.txt' }, context)).toEqual({ kind: 'gate', action: { kind: 'fileWrite', path: '/w/tree/a/b.txt', toolName: 'Write' } });
    expect(routeSdkTool('NotebookEdit', { notebook_path: '/w/tree/n.ipynb' }, context)).toEqual({ kind: 'gate', action: { kind: 'fileWrite', path: '/w/tree/n.ipynb', toolName: 'NotebookEdit' } });
  });

  it('refuses every write tool in a read-only mode before any gate', () => {
    for (const tool of ['Write', 'Edit', 'MultiEdit', 'NotebookEdit']) expect(routeSdkTool(tool, { file_path: 'x' }, { ...context, readOnly: true }).kind).toBe('deny');
  });

  it('fails closed on malformed input, unsurfaced MCP tools and unknown tools', () => {
    expect(routeSdkTool('Bash', {}, context).kind).toBe('deny');
    expect(routeSdkTool('Write', { file_path: 3 }, context).kind).toBe('deny');
    expect(routeSdkTool('mcp__control-center__submit_plan', {}, context)).toEqual({ kind: 'allow' });
    expect(routeSdkTool('mcp__control-center__delete_everything', {}, context).kind).toBe('deny');
    expect(routeSdkTool('mcp__other__submit_plan', {}, context).kind).toBe('deny');
    expect(routeSdkTool('EnterWorktree', {}, context).kind).toBe('deny');
  });

  it('property: no tool name outside the known read set is ever allowed without the gate', () => {
    const known = new Set(['Read', 'Glob', 'Grep', 'LS', 'NotebookRead', 'TodoWrite', 'WebFetch', 'WebSearch', 'Agent', 'Task', 'TaskOutput', 'BashOutput', 'KillShell', 'KillBash', 'ToolSearch', 'EnterPlanMode']);
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 })), (name, input) => {
        const route = routeSdkTool(name, input, context);
        if (route.kind === 'allow') expect(known.has(name) || name.startsWith('mcp__control-center__')).toBe(true);
      }),
    );
  });

  it('maps relay modes onto the SDK: plan → plan permission mode, ask/autopilot → sentences, agent → nothing', () => {
    expect(sdkModeOptions('plan')).toEqual({ permissionMode: 'plan', sentences: '' });
    expect(sdkModeOptions('agent')).toEqual({ permissionMode: 'default', sentences: '' });
    expect(sdkModeOptions('ask').sentences).toMatch(/AskUserQuestion/);
    expect(sdkModeOptions('autopilot').permissionMode).toBe('default');
  });

  it('recognises a plan-like answer (RLY-5 fallback)', () => {
    expect(looksLikePlan('1. Read\n2. Write')).toBe(true);
    expect(looksLikePlan('## Plan\nDo it.')).toBe(true);
    expect(looksLikePlan('Done. All good.')).toBe(false);
  });
});
