import { describe, expect, it } from 'vitest';
import { claudeCodeArgs, mcpConfig } from '../../src/adapters/claude-code/claude-code-args.js';
import { HOOK_MATCHER } from '../../src/adapters/claude-code/hook-decision.js';
import { hookSettings } from '../../src/adapters/claude-code/hook-script.js';
import { bubblewrapArguments, relayInitScript } from '../../src/sandbox/bubblewrap-sandbox.js';

const base = {
  settings: hookSettings("'/usr/bin/node' '/run/hook.mjs' || exit 2", 3600),
  mcp: { url: 'http://127.0.0.1:4317/mcp', token: 'cca_x' },
  appendSystemPrompt: 'You are the coder.',
};

/** The value of `name`, given as `name value` or glued as `name=value`. */
function flag(args: string[], name: string): string | undefined {
  const glued = args.find((arg) => arg.startsWith(`${name}=`));
  if (glued !== undefined) return glued.slice(name.length + 1);
  const index = args.indexOf(name);
  return index === -1 ? undefined : args[index + 1];
}

describe('claudeCodeArgs (ADP-3)', () => {
  it('chat passes the skip flag and never plan mode, and removes only the worktree tools', () => {
    const args = claudeCodeArgs({ ...base, mode: 'chat', surfacedTools: ['ask_user'] });
    expect(args.slice(0, 6)).toEqual(['-p', '--output-format', 'stream-json', '--verbose', '--input-format', 'stream-json']);
    expect(args).toContain('--dangerously-skip-permissions');
    expect(args).not.toContain('--permission-mode');
    expect(flag(args, '--disallowedTools')).toBe('EnterWorktree,ExitWorktree');
    expect(args).not.toContain('--allowedTools');
  });

  it('every read-only mode passes --permission-mode plan, removes the mutating natives and never passes the skip flag', () => {
    for (const mode of ['plan', 'review', 'orchestrate'] as const) {
      const surfaced = mode === 'review' ? ['add_review_node', 'ask_user'] : mode === 'plan' ? ['submit_plan', 'ask_user'] : ['propose_orchestration', 'ask_user'];
      const args = claudeCodeArgs({ ...base, mode, surfacedTools: surfaced });
      expect(flag(args, '--permission-mode')).toBe('plan');
      expect(args).not.toContain('--dangerously-skip-permissions');
      expect(flag(args, '--disallowedTools')!.split(',')).toEqual(expect.arrayContaining(['Write', 'Edit', 'MultiEdit', 'NotebookEdit', 'EnterWorktree']));
      // CAP-8: only the surfaced MCP tools are allowed; nothing else is named.
      expect(flag(args, '--allowedTools')!.split(',')).toEqual(surfaced.map((name) => `mcp__control-center__${name}`));
    }
  });

  it('turns off every settings source but the flag, restricts MCP to the Control Center with the run token, and hooks the gated tools', () => {
    const args = claudeCodeArgs({ ...base, mode: 'chat', surfacedTools: [], resumeSessionId: 'sess-1', model: 'anthropic/claude-sonnet-5-5', effort: 'high' });
    expect(flag(args, '--setting-sources')).toBe('');
    expect(args).toContain('--strict-mcp-config');
    expect(JSON.parse(flag(args, '--mcp-config')!)).toEqual(mcpConfig(base.mcp));
    expect(JSON.parse(flag(args, '--mcp-config')!).mcpServers['control-center']).toEqual({ type: 'http', url: base.mcp.url, headers: { Authorization: 'Bearer cca_x' } });
    const settings = JSON.parse(flag(args, '--settings')!);
    expect(settings.disableAllHooks).toBe(false);
    expect(settings.hooks.PreToolUse[0].matcher).toBe(HOOK_MATCHER);
    expect(new RegExp(HOOK_MATCHER).test('Bash')).toBe(true);
    expect(new RegExp(HOOK_MATCHER).test('BashOutput')).toBe(false);
    expect(settings.hooks.PreToolUse[0].hooks[0]).toMatchObject({ type: 'command', timeout: 3600 });
    expect(flag(args, '--resume')).toBe('sess-1');
    expect(flag(args, '--model')).toBe('claude-sonnet-5-5');
    expect(flag(args, '--effort')).toBe('high');
    expect(flag(args, '--append-system-prompt')).toBe('You are the coder.');
    expect(args).toContain('--include-partial-messages');
  });
});

describe('bubblewrapArguments (SBX-1)', () => {
  const spec = {
    command: '/usr/bin/claude',
    args: ['-p'],
    cwd: '/data/ws/worktrees/cv',
    writable: ['/data/ws/worktrees/cv', '/data/ws/claude-code/sessions/s'],
    readOnly: ['/data/ws/claude-code/runs/r/hook'],
    hidden: ['/data', '/root'],
    privateTmp: ['/tmp', '/data/ws/claude-code/runs/r/home'],
    network: { kind: 'loopback' as const, ports: [4317, 9000] },
  };

  it('drops capabilities, isolates the network, and mounts parents before the paths re-exposed inside them', () => {
    const args = bubblewrapArguments(spec, (port) => `/tmp/ccnet-x/${port}.sock`);
    expect(args.slice(0, 4)).toEqual(['--die-with-parent', '--new-session', '--cap-drop', 'ALL']);
    expect(args).toContain('--unshare-net');
    expect(args).toContain('--unshare-pid');
    const position = (needle: string[]) => args.findIndex((_, index) => needle.every((part, offset) => args[index + offset] === part));
    expect(position(['--ro-bind', '/', '/'])).toBeLessThan(position(['--tmpfs', '/data']));
    expect(position(['--tmpfs', '/data'])).toBeLessThan(position(['--bind', '/data/ws/worktrees/cv', '/data/ws/worktrees/cv']));
    expect(position(['--tmpfs', '/data'])).toBeLessThan(position(['--tmpfs', '/data/ws/claude-code/runs/r/home']));
    expect(position(['--ro-bind', '/tmp/ccnet-x/4317.sock', '/tmp/.cc-net/4317.sock'])).toBeGreaterThan(position(['--tmpfs', '/tmp']));
    // Hidden directories become read-only last, after everything inside them is mounted.
    expect(position(['--remount-ro', '/data'])).toBeGreaterThan(position(['--bind', '/data/ws/claude-code/sessions/s', '/data/ws/claude-code/sessions/s']));
    expect(args.slice(args.indexOf('--') + 1, args.indexOf('--') + 3)).toEqual(['sh', '-c']);
    expect(args.slice(-2)).toEqual(['/usr/bin/claude', '-p']);
  });

  it('waits for every relay listener before starting the runner', () => {
    const script = relayInitScript([4317]);
    expect(script).toContain('socat TCP-LISTEN:4317,bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:/tmp/.cc-net/4317.sock &');
    expect(script).toContain("0100007F:10DD 00000000:0000 0A");
    expect(script.trim().endsWith('exec "$@"')).toBe(true);
  });

  it('keeps the host network only when told why', () => {
    const args = bubblewrapArguments({ ...spec, network: { kind: 'host', reason: 'api.anthropic.com is not on loopback' } });
    expect(args).not.toContain('--unshare-net');
    expect(args.slice(args.indexOf('--') + 1)).toEqual(['/usr/bin/claude', '-p']);
  });
});
