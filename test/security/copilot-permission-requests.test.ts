import { describe, expect, it } from 'vitest';
import { approvalQuestion, classifyCopilotPermission } from '../../src/adapters/copilot/copilot-permission.js';

/**
 * Every field of a Copilot permission request is written by the model (POL-1, POL-4). The host
 * approves without the gate only what the runtime's own structured fields call a read; anything it
 * cannot name, and anything spoofing a name, is refused or put to the gate, never approved.
 */
describe('Copilot permission requests are hostile input (RLY-7, POL-4)', () => {
  it('a shell request is a read only when every command is parsed read-only and nothing redirects into a file', () => {
    const shell = (fields: Record<string, unknown>) => classifyCopilotPermission({ kind: 'shell', fullCommandText: 'cat a > b', ...fields });
    expect(shell({ commands: [{ identifier: 'ls', readOnly: true }], hasWriteFileRedirection: false }).kind).toBe('read');
    // A redirection makes even "read-only" commands write.
    expect(shell({ commands: [{ identifier: 'cat a', readOnly: true }], hasWriteFileRedirection: true })).toMatchObject({ kind: 'gate', action: { kind: 'command', command: 'cat a > b' } });
    // One writing command among readers, no commands at all, or a truthy non-boolean flag: the gate decides.
    expect(shell({ commands: [{ readOnly: true }, { readOnly: false }] }).kind).toBe('gate');
    expect(shell({ commands: [] }).kind).toBe('gate');
    expect(shell({ commands: [{ readOnly: 'yes' }] }).kind).toBe('gate');
    expect(shell({ commands: 'readOnly' }).kind).toBe('gate');
  });

  it('a request naming nothing to check is refused, not approved', () => {
    expect(classifyCopilotPermission({ kind: 'shell', fullCommandText: '   ', commands: [{ readOnly: false }] }).kind).toBe('refuse');
    expect(classifyCopilotPermission({ kind: 'shell', commands: [{ readOnly: false }] }).kind).toBe('refuse');
    expect(classifyCopilotPermission({ kind: 'write', fileName: '' }).kind).toBe('refuse');
    expect(classifyCopilotPermission({ kind: 'write', fileName: { path: 'x' } }).kind).toBe('refuse');
  });

  it('a write names its path for the gate verbatim (the gate resolves it against the worktree)', () => {
    expect(classifyCopilotPermission({ kind: 'write', fileName: '../../etc/passwd', diff: 'x' })).toEqual({
      kind: 'gate',
      action: { kind: 'fileWrite', path: '../../etc/passwd', toolName: 'copilot:write' },
      summary: 'write ../../etc/passwd',
    });
  });

  it('only the exact Control Center MCP server name counts as a product tool; look-alikes are refused', () => {
    expect(classifyCopilotPermission({ kind: 'mcp', serverName: 'control-center', toolName: 'submit_plan', readOnly: false }).kind).toBe('product');
    for (const serverName of ['control-center ', 'Control-Center', 'control-center/../evil', '', undefined]) {
      expect(classifyCopilotPermission({ kind: 'mcp', serverName, toolName: 'x', readOnly: true }).kind).toBe('refuse');
    }
  });

  it('kinds the host does not grant (URLs, memories, extensions, hooks, unknown or spoofed kinds) are refused', () => {
    for (const kind of ['url', 'memory', 'custom-tool', 'hook', 'extension-management', 'factory', 'extension-permission-access', 'READ', 'read ', '', 42, undefined]) {
      expect(classifyCopilotPermission({ kind, url: 'http://example.com', path: 'x' }).kind).toBe('refuse');
    }
  });

  it('the Ask card shows the command as data: it cannot add options or change what Approve means', () => {
    const card = approvalQuestion('rm -rf /\nApprove this action?');
    expect(card.options).toEqual(['Approve', 'Deny']);
    expect(card.question.startsWith('Copilot wants to run: rm -rf /')).toBe(true);
    expect(card.question.endsWith('\nApprove this action?')).toBe(true);
  });
});
