import { beforeAll, describe, expect, it } from 'vitest';
import { classifyShellCommand, isSecretPath, loadShellParser } from '../../src/core/index.js';

beforeAll(async () => {
  await loadShellParser();
});

const argvs = (command: string): string[][] => classifyShellCommand(command).subcommands.map((subcommand) => [...subcommand.argv]);

describe('shell classifier structure (POL-2)', () => {
  it('POL-2: wrappers are peeled before argv is reported (prefix rules match the real command)', () => {
    expect(argvs('timeout 5 git push origin main')).toEqual([['git', 'push', 'origin', 'main']]);
    expect(argvs('sudo -u root env FOO=1 nice -n 5 rm a')).toEqual([['rm', 'a']]);
    expect(argvs('/usr/bin/git push')).toEqual([['git', 'push']]);
    expect(argvs('\\rm x')).toEqual([['rm', 'x']]);
  });

  it('POL-2: every subcommand of a chain is listed in source order', () => {
    expect(argvs('ls && rm -rf build; git push || true')).toEqual([['ls'], ['rm', '-rf', 'build'], ['git', 'push'], ['true']]);
  });

  it('POL-2: sh -c nesting is parsed and its commands listed', () => {
    const result = classifyShellCommand('bash -c "git commit -m x && git push"');
    expect(result.subcommands.map((subcommand) => subcommand.argv)).toEqual([
      ['bash', '-c', 'git commit -m x && git push'],
      ['git', 'commit', '-m', 'x'],
      ['git', 'push'],
    ]);
    expect(result.classes).toEqual(['gitCommit', 'gitPush', 'networkEgress']);
  });

  it('POL-2: find -exec and xargs run their command as a subcommand', () => {
    expect(argvs('find . -name x -exec rm {} \\;').map((argv) => argv[0])).toEqual(['find', 'rm']);
    expect(argvs('ls | xargs rm').map((argv) => argv[0])).toEqual(['ls', 'rm']);
  });

  it('HAR-7: absolute paths below a known worktree root are inside', () => {
    expect(classifyShellCommand('rm /work/repo/build/x', { worktreeRoot: '/work/repo' })).toMatchObject({ classes: ['fileDelete'], writesWorktree: true });
    expect(classifyShellCommand('rm /work/repo/../x', { worktreeRoot: '/work/repo' })).toMatchObject({ classes: ['fileDelete', 'fileWriteOutsideWorktree'], writesWorktree: false });
    expect(classifyShellCommand('cd /work/repo/src && touch x', { worktreeRoot: '/work/repo' })).toMatchObject({ classes: [], writesWorktree: true });
  });

  it('summary collapses unquoted whitespace, keeps line breaks (they separate commands) and quoted whitespace', () => {
    expect(classifyShellCommand('  git   push \t origin  ').summary).toBe('git push origin');
    expect(classifyShellCommand('  git   push\n origin  ').summary).toBe('git push\norigin');
    expect(classifyShellCommand(`rm  -f "a  b" 'c\td'`).summary).toBe(`rm -f "a  b" 'c\td'`);
  });

  it('unparsable input is unknown with the restrictive classes', () => {
    const result = classifyShellCommand('echo "unterminated');
    expect(result.unknown).toBe(true);
    expect(result.classes).toEqual(expect.arrayContaining(['processSpawn', 'fileWriteOutsideWorktree', 'fileDelete']));
  });

  it('deep sh -c nesting beyond the limit is unknown, not a crash', () => {
    let command = 'rm x';
    for (let depth = 0; depth < 12; depth += 1) command = `sh -c ${JSON.stringify(command)}`;
    const result = classifyShellCommand(command);
    expect(result.unknown).toBe(true);
  });

  it('handles a large heredoc fed to an interpreter', () => {
    const body = 'print("x")\n'.repeat(2000);
    const result = classifyShellCommand(`python3 - <<'EOF'\n${body}EOF`);
    expect(result.unknown).toBe(true);
    expect(result.classes).toContain('processSpawn');
  });

  it('POL-2: secret paths are recognised, their examples are not', () => {
    expect(isSecretPath('.env')).toBe(true);
    expect(isSecretPath('config/.env.production')).toBe(true);
    expect(isSecretPath('.env.example')).toBe(false);
    expect(isSecretPath('~/.ssh/id_ed25519')).toBe(true);
    expect(isSecretPath('src/index.ts')).toBe(false);
  });

  it('classification is deterministic and pure (same input, same output)', () => {
    const command = 'cd src && rm -rf build && curl -o x https://e.com | sh';
    expect(classifyShellCommand(command)).toEqual(classifyShellCommand(command));
  });
});
