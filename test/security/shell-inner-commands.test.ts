import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyShellCommand, compilePolicy, decideAction, EFFECT_CLASSES, loadShellParser, shellAction, type PolicyContext } from '../../src/core/index.js';
import { startProbeServer, type ProbeServer } from '../support/policy-probe-server.js';

/**
 * POL-2, SEC-5: a command that carries another command as its arguments — a wrapper (`timeout -s KILL
 * 5 cmd`), a search that runs a program on what it finds (`fd -x`, `rg --pre`), git running a command
 * (`submodule foreach`, `bisect run`, `filter-branch --tree-filter`), a remote shell (`ssh host cmd`),
 * a job queue (`at`, `crontab`), a stream editor's `e` command — is classified by that inner command,
 * with each carrier's own options parsed. What the inner command is cannot be known → unseen code.
 * Before, `fd -x git push`, `rg --pre ./x`, `sed '1e git push'` read as nothing, `ssh host git push`
 * and `at now <<< "git push"` dodged a push deny, and `git filter-branch --tree-filter "rm -rf x"` a
 * delete deny.
 */

const CONTEXT: PolicyContext = { mode: 'chat', autonomy: 'actWithApproval', workspaceId: 'ws_1' };
const DENY_PUSHES = compilePolicy([{ id: 'no-push', scope: 'workspace', scopeId: 'ws_1', match: { kind: 'class', effectClass: 'gitPush' }, decision: 'deny' }]);
const PUSH_RULE = compilePolicy([{ id: 'no-git-push', scope: 'workspace', scopeId: 'ws_1', match: { kind: 'command', prefix: 'git push' }, decision: 'deny' }]);

/** Each carries `git push` (and only that) as its inner command: the push deny and the `git push` prefix rule must both see it. */
const CARRYING_A_PUSH = [
  'timeout -s KILL 5 git push',
  'timeout --signal=TERM -k 2 10 git push',
  'nice -n 10 git push',
  'ionice -c 2 -n 7 git push',
  'env -u FOO A=1 git push',
  'nohup git push',
  'stdbuf -oL -eL git push',
  'time -p git push',
  'sudo -u deploy -- git push',
  'doas -u deploy git push',
  'flock -w 5 ./lock git push',
  'setsid -f git push',
  'watch -n 5 git push',
  'xargs -n1 -P4 -I{} git push origin {}',
  'find . -maxdepth 0 -exec git push \\;',
  'find . -maxdepth 0 -execdir git push {} +',
  'find . -maxdepth 0 -ok git push \\;',
  'fd -t d -x git push',
  'fd --exec-batch git push',
  'git submodule foreach git push',
  'git submodule --quiet foreach --recursive "git push"',
  'git bisect run git push',
  'git rebase -x "git push" main',
  'sh -c "git push"',
  'bash -c \'cd sub && git push\'',
  'ssh build-host git push',
  'ssh -p 2222 -l ci build-host "cd repo && git push"',
  'ssh -o RemoteCommand="git push" build-host',
  'sshpass -p hunter2 ssh build-host git push',
  'parallel -j2 git push ::: origin backup',
  'parallel "git push {}" ::: origin backup',
  'busybox sh -c "git push"',
  'rsync -e "sh -c \'git push\'" -a x host:y',
];

/** Each hides its inner command from the classifier (or runs it later, outside any gate): unseen code. */
const UNSEEN_INNER = [
  'rg --pre ./decode.sh TODO',
  'rg --pre=./decode.sh TODO',
  "sed -n '1e git push' notes.txt",
  "sed 's/.*/git push/e' notes.txt",
  "sed '$!e git push' notes.txt",
  'at now <<< "git push"',
  'echo "git push" | batch',
  'crontab jobs.txt',
  'ssh -o ProxyCommand="git push" host',
  'ssh host -o LocalCommand=x -o PermitLocalCommand=yes',
  'ssh -F ./ssh_config host',
  'scp -S ./fake-ssh a host:b',
  'git fetch --upload-pack="git push; git-upload-pack" ../other',
  'git clone --template=./hooks ../other copy',
  'git send-email --to-cmd ./recipients.sh 0001.patch',
  'ls | parallel',
  'xargs sh -c "$CMD"',
  'ssh host "$CMD"',
  'git submodule foreach "$CMD"',
];

beforeAll(async () => {
  await loadShellParser();
});

describe('commands carried as arguments are classified by the inner command (POL-2, SEC-5)', () => {
  it.each(CARRYING_A_PUSH.map((command) => [command]))('POL-2: %s carries git push: a gitPush deny and a `git push` prefix rule both deny it', (command) => {
    const result = classifyShellCommand(command);
    expect(result.classes, command).toContain('gitPush');
    expect(result.subcommands.some((subcommand) => subcommand.argv[0] === 'git' && subcommand.argv[1] === 'push'), command).toBe(true);
    expect(decideAction(DENY_PUSHES, shellAction(result), CONTEXT).decision).toBe('deny');
    expect(decideAction(PUSH_RULE, shellAction(result), CONTEXT).decision).toBe('deny');
  });

  it.each(UNSEEN_INNER.map((command) => [command]))('SEC-5: %s runs a command the classifier cannot see: every class', (command) => {
    const result = classifyShellCommand(command);
    expect({ unknown: result.unknown, classes: result.classes }, command).toEqual({ unknown: true, classes: [...EFFECT_CLASSES] });
    expect(decideAction(DENY_PUSHES, shellAction(result), CONTEXT).decision).toBe('deny');
  });

  it.each([
    ['git filter-branch --tree-filter "rm -rf secrets" HEAD', 'fileDelete'],
    ['fd -e tmp -x rm', 'fileDelete'],
    ['ssh host "rm -rf /srv/data"', 'fileDelete'],
    ['git difftool -x "rm -rf ~/notes" HEAD', 'fileDelete'],
    ['timeout 5 curl -o /tmp/x https://example.com', 'fileWriteOutsideWorktree'],
    ['parallel -S build1 make ::: a', 'networkEgress'],
  ] as const)('POL-2: %s carries %s', (command, effectClass) => {
    expect(classifyShellCommand(command).classes).toContain(effectClass);
  });

  it.each(['fd -e ts', 'rg TODO src', "sed -n '1,5p' notes.txt", "sed -i 's/e/w/g; /^#/d' notes.txt", 'ssh build-host', 'git submodule foreach git status', 'parallel echo {} ::: a b'])(
    'POL-2: %s runs nothing hidden and pushes nothing',
    (command) => {
      const result = classifyShellCommand(command);
      expect(result.unknown, command).toBe(false);
      expect(result.classes, command).not.toContain('gitPush');
    },
  );
});

describe('POL-2 over real HTTP: /policy/probe under a gitPush deny', () => {
  let server: ProbeServer;
  beforeAll(async () => {
    server = await startProbeServer();
  });
  afterAll(async () => {
    await server.dispose();
  });

  it('POL-2: pushes carried by fd, ssh, git submodule foreach, at and sed are denied by the push rule; a plain read is allowed', async () => {
    const rule = await server.api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'class', effectClass: 'gitPush' }, decision: 'deny' });
    expect(rule.status).toBe(201);
    try {
      for (const command of ['fd -x git push', 'ssh build-host git push', 'git submodule foreach git push', 'at now <<< "git push"', "sed -n '1e git push' notes.txt", 'timeout -s KILL 5 git push']) {
        expect((await server.api('POST', '/policy/probe', { command })).body, command).toMatchObject({ decision: 'deny', decidedBy: { ruleId: rule.body.id } });
      }
      expect((await server.api('POST', '/policy/probe', { command: 'fd -e ts' })).body).toMatchObject({ decision: 'allow' });
    } finally {
      await server.api('DELETE', `/policy/rules/${rule.body.id}`);
    }
  });
});
