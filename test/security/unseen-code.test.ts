import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  classifyShellCommand,
  compilePolicy,
  decideAction,
  loadShellParser,
  shellAction,
  type Decision,
  type PolicyContext,
  type PolicyRule,
  type RuleMatch,
  type ShellClassification,
} from '../../src/core/index.js';
import { UNKNOWN_CODE_CLASSES } from '../../src/core/shell/classify-command.js';
import { worktreeFileReader } from '../../src/services/worktree-file-reader.js';
import { startClaudeCodeFixture, type ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { reply } from '../support/scripted-reply.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

/**
 * SEC-5: code the classifier cannot see (an interpreter on a file or stdin, an unparsable string,
 * make, npm run, …) gets the unknown-code classes unless its content is read from the worktree and
 * classifies cleanly. Before the fix every command below that runs a file was a plain processSpawn, so
 * `bash d.sh` with `rm` in it passed a fileDelete deny.
 */

const CONTEXT: PolicyContext = { mode: 'chat', autonomy: 'actWithApproval', workspaceId: 'ws_1' };
const DENY_DELETES: PolicyRule = { id: 'no-deletes', scope: 'workspace', scopeId: 'ws_1', match: { kind: 'class', effectClass: 'fileDelete' }, decision: 'deny' };

const dirs: string[] = [];
let worktree: string;

beforeAll(async () => {
  await loadShellParser();
});
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** A fresh worktree holding `files` (relative path → content). */
function makeWorktree(files: Record<string, string>): string {
  const root = tempDir('cc-unseen-');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

function classify(root: string, command: string): ShellClassification {
  return classifyShellCommand(command, { worktreeRoot: root, files: worktreeFileReader(root) });
}

function decide(root: string, command: string, rules: PolicyRule[] = []): Decision {
  return decideAction(compilePolicy(rules), shellAction(classify(root, command)), CONTEXT).decision;
}

function expectUnseen(result: ShellClassification, command: string): void {
  expect(result.unknown, command).toBe(true);
  for (const effectClass of UNKNOWN_CODE_CLASSES) expect(result.classes, command).toContain(effectClass);
  expect(result.writesWorktree, command).toBe(true);
}

const DELETING_SCRIPT = '#!/bin/sh\nset -e\nrm -f victim.txt\n';
const BENIGN_SCRIPT = '#!/bin/sh\necho hello > out.txt\nls -la\n';
const PACKAGE_JSON = JSON.stringify({ scripts: { test: 'vitest run', clean: 'rm -rf dist', prebuild: 'echo building', build: 'tsc -p .', lint: 'eslint src' } });

/** A directory outside every worktree, with files a script or Makefile symlink may point at. */
const outside = tempDir('cc-unseen-outside-');

beforeAll(() => {
  writeFileSync(join(outside, 'evil.sh'), 'rm -rf ~/precious\n');
  writeFileSync(join(outside, 'benign.sh'), 'echo hi\n');
  writeFileSync(join(outside, 'Makefile'), 'all:\n\techo hi\n');
  worktree = makeWorktree({
    'd.sh': DELETING_SCRIPT,
    'ok.sh': BENIGN_SCRIPT,
    'noshebang.sh': 'rm -rf build\n',
    'py.sh': '#!/usr/bin/env python3\nprint(1)\n',
    'calls.sh': 'bash ./ok.sh\nsh scripts/inner.sh\n',
    'scripts/inner.sh': 'rm -rf tmp\n',
    'loop.sh': 'bash loop.sh\n',
    'd.py': 'import os\nos.remove("victim.txt")\n',
    'x.js': 'require("fs").rmSync("victim.txt")\n',
    'package.json': PACKAGE_JSON,
    Makefile: 'all: build\n\n.PHONY: all build clean\nbuild:\n\t@echo building\n\ttsc -p .\nclean:\n\trm -rf dist\n',
    'victim.txt': 'keep me',
  });
  symlinkSync(join(outside, 'benign.sh'), join(worktree, 'linked.sh'));
  symlinkSync(outside, join(worktree, 'elsewhere'));
});

describe('SEC-5: shell scripts are read from the worktree and classified like typed shell', () => {
  it.each(['bash d.sh', 'sh d.sh', 'bash -e ./d.sh', 'dash -- d.sh', './d.sh', 'source ./d.sh', '. ./d.sh', 'exec ./d.sh', 'timeout 5 bash d.sh', './noshebang.sh'])(
    'SEC-5: %s with rm in it is a fileDelete: asks by default, denied under a fileDelete deny rule',
    (command) => {
      const result = classify(worktree, command);
      expect(result.classes, command).toContain('fileDelete');
      expect(result.subcommands.some((subcommand) => subcommand.argv[0] === 'rm'), command).toBe(true);
      expect(decide(worktree, command)).toBe('ask');
      expect(decide(worktree, command, [DENY_DELETES])).toBe('deny');
    },
  );

  it.each(['bash ok.sh', 'sh ./ok.sh', './ok.sh', 'source ./ok.sh'])('SEC-5: a benign script %s is allowed in Agent mode and not unknown', (command) => {
    const result = classify(worktree, command);
    expect(result.unknown).toBe(false);
    expect(result.classes).toEqual(['processSpawn']);
    expect(decide(worktree, command, [DENY_DELETES])).toBe('allow');
  });

  it('SEC-5: a script calling other scripts is followed (bounded); a self-calling script ends as unseen code', () => {
    const calls = classify(worktree, 'bash calls.sh');
    expect(calls.unknown).toBe(false);
    expect(calls.subcommands.map((subcommand) => subcommand.argv.join(' '))).toContain('rm -rf tmp');
    expect(decide(worktree, 'bash calls.sh', [DENY_DELETES])).toBe('deny');
    expectUnseen(classify(worktree, 'bash loop.sh'), 'bash loop.sh');
  });

  it.each([
    ['bash missing.sh', 'missing'],
    ['bash linked.sh', 'symlink to a file outside the worktree'],
    ['bash elsewhere/evil.sh', 'a directory symlink leading outside'],
    ['bash elsewhere/../d.sh', 'a .. the kernel resolves physically'],
    [`bash ${join(outside, 'evil.sh')}`, 'an absolute path outside'],
    ['bash "$SCRIPT"', 'a run-time path'],
    ['bash *.sh', 'a glob'],
    ['source ok.sh', 'a name PATH is searched for'],
    ['./py.sh', 'a non-shell shebang'],
    ['fish ok.sh', 'a shell tree-sitter-bash does not read'],
    ['cd /tmp && bash ok.sh', 'a script outside after cd'],
    ['BASH_ENV=./d.sh bash ok.sh', 'a variable that injects code'],
    ['env BASH_ENV=./d.sh bash ok.sh', 'the same through env'],
  ])('SEC-5: %s (%s) is unseen code, never read outside', (command) => {
    const result = classify(worktree, command);
    expectUnseen(result, command);
    expect(decide(worktree, command, [DENY_DELETES])).toBe('deny');
  });

  it('SEC-5: a push inside a readable script is a gitPush the policy sees, with its own argv for command rules', () => {
    const root = makeWorktree({ 'ship.sh': 'git commit --allow-empty -m x\ngit push origin HEAD:main\n' });
    const result = classify(root, 'chmod +x ship.sh && ./ship.sh');
    expect(result.classes).toContain('gitPush');
    expect(result.subcommands.map((subcommand) => subcommand.argv.join(' '))).toContain('git push origin HEAD:main');
    const denyPush: PolicyRule = { id: 'no-push', scope: 'workspace', scopeId: 'ws_1', match: { kind: 'command', prefix: 'git push' } as RuleMatch, decision: 'deny' };
    expect(decide(root, 'sh ship.sh', [denyPush])).toBe('deny');
  });

  it('SEC-5: without a worktree reader every script is unseen code', () => {
    for (const command of ['bash ok.sh', './ok.sh', 'source ./ok.sh', 'npm test', 'make']) expectUnseen(classifyShellCommand(command), command);
  });
});

describe('SEC-5: interpreters on files or stdin are unseen code', () => {
  it.each([
    'python3 d.py',
    'python d.py',
    'python3 -u d.py',
    'python3 - < d.py',
    'cat d.py | python3',
    'python3 -m mypackage',
    'node x.js',
    'node -e "$(cat x.js)"',
    'ruby x.rb',
    'perl x.pl',
    'tsx x.ts',
    'deno run x.ts',
    'bash < d.sh',
    'cat d.sh | sh',
    'xargs sh < list.txt',
    'find . -name "*.sh" -exec sh {} \\;',
    'npx some-tool',
    'sh -c "$(cat d.sh)"',
    'node -r ./x.js',
    'npm --prefix sub test',
    'LD_PRELOAD=./evil.so ls',
  ])('SEC-5: %s gets the unknown-code classes and is denied under a fileDelete deny', (command) => {
    expectUnseen(classify(worktree, command), command);
    expect(decide(worktree, command, [DENY_DELETES])).toBe('deny');
  });

  it('SEC-5: test runners named directly stay processSpawn (the documented line)', () => {
    for (const command of ['vitest run', 'pytest -q', 'python3 -m pytest']) {
      expect(classify(worktree, command).classes, command).toEqual(['processSpawn']);
      expect(decide(worktree, command, [DENY_DELETES])).toBe('allow');
    }
  });
});

describe('SEC-5: package.json scripts', () => {
  it('SEC-5: npm test running vitest run stays allowed in Agent mode; a clean script with rm -rf asks', () => {
    expect(classify(worktree, 'npm test').classes).toEqual(['processSpawn']);
    expect(decide(worktree, 'npm test')).toBe('allow');
    expect(decide(worktree, 'npm test', [DENY_DELETES])).toBe('allow');
    for (const command of ['npm run clean', 'yarn clean', 'pnpm run clean', 'npm run-script clean', 'bun run clean']) {
      const result = classify(worktree, command);
      expect(result.unknown, command).toBe(false);
      expect(result.classes, command).toContain('fileDelete');
      expect(decide(worktree, command), command).toBe('ask');
      expect(decide(worktree, command, [DENY_DELETES]), command).toBe('deny');
    }
  });

  it('SEC-5: pre/post scripts and extra arguments are classified too', () => {
    const build = classify(worktree, 'npm run build');
    expect(build.subcommands.map((subcommand) => subcommand.argv.join(' '))).toEqual(['npm run build', 'echo building', 'tsc -p .']);
    const lint = classify(worktree, 'npm run lint -- --fix');
    expect(lint.subcommands.map((subcommand) => subcommand.argv.join(' '))).toContain('eslint src --fix');
    expect(lint.writesWorktree).toBe(true);
  });

  it.each([
    ['npm run nope', worktree],
    ['npm test', 'no package.json'],
    ['npm run build --script-shell=./d.sh', worktree],
    ['npm exec vitest', worktree],
    ['yarn dlx something', worktree],
    ['npm start', worktree],
  ])('SEC-5: %s (missing script or config that changes it) is unseen code', (command, where) => {
    const root = where === 'no package.json' ? makeWorktree({ 'README.md': 'x' }) : worktree;
    expectUnseen(classify(root, command), command);
  });

  it('SEC-5: a project .npmrc that sets script-shell or node-options makes scripts unseen code; registry settings do not', () => {
    const shellRc = makeWorktree({ 'package.json': PACKAGE_JSON, '.npmrc': 'script-shell=./d.sh\n' });
    expectUnseen(classify(shellRc, 'npm test'), 'npm test with script-shell');
    const nodeOptions = makeWorktree({ 'package.json': PACKAGE_JSON, '.npmrc': 'node-options=--require ./x.js\n' });
    expectUnseen(classify(nodeOptions, 'npm test'), 'npm test with node-options');
    const registry = makeWorktree({ 'package.json': PACKAGE_JSON, '.npmrc': 'registry=https://registry.example/\nsave-exact=true\n' });
    expect(classify(registry, 'npm test').unknown).toBe(false);
    expectUnseen(classify(worktree, 'NODE_OPTIONS="--require ./x.js" npm test'), 'NODE_OPTIONS prefix');
  });
});

describe('SEC-5: Makefile recipes', () => {
  it('SEC-5: make clean with rm asks/denies; make with a plain echo recipe is allowed', () => {
    expect(classify(worktree, 'make clean').classes).toContain('fileDelete');
    expect(decide(worktree, 'make clean')).toBe('ask');
    expect(decide(worktree, 'make clean', [DENY_DELETES])).toBe('deny');
    const all = classify(worktree, 'make');
    expect(all.unknown).toBe(false);
    expect(all.subcommands.map((subcommand) => subcommand.argv.join(' '))).toEqual(['make', 'echo building', 'tsc -p .']);
    expect(decide(worktree, 'make', [DENY_DELETES])).toBe('allow');
    expect(decide(worktree, 'make -s -j4 build', [DENY_DELETES])).toBe('allow');
  });

  it.each([
    ['variables', 'CC = gcc\nbuild:\n\t$(CC) main.c\n'],
    ['a parse-time shell function', 'X := $(shell rm -rf /)\nbuild:\n\techo hi\n'],
    ['include', 'include other.mk\nbuild:\n\techo hi\n'],
    ['a SHELL override', 'SHELL = ./d.sh\nbuild:\n\techo hi\n'],
    ['pattern rules', '%.o: %.c\n\techo hi\nbuild: a.o\n'],
    ['.ONESHELL', '.ONESHELL:\nbuild:\n\techo hi\n'],
    ['conditionals', 'ifeq (a,a)\nbuild:\n\techo hi\nendif\n'],
  ])('SEC-5: a Makefile with %s is unseen code', (_what, makefile) => {
    const root = makeWorktree({ Makefile: makefile });
    expectUnseen(classify(root, 'make build'), makefile);
  });

  it('SEC-5: make without a Makefile, on a symlinked Makefile, or with goal variables is unseen code', () => {
    expectUnseen(classify(makeWorktree({ 'README.md': 'x' }), 'make'), 'no Makefile');
    const linked = makeWorktree({});
    symlinkSync(join(outside, 'Makefile'), join(linked, 'Makefile'));
    expectUnseen(classify(linked, 'make'), 'symlinked Makefile');
    expectUnseen(classify(worktree, 'make SHELL=./d.sh build'), 'goal variable');
    expectUnseen(classify(worktree, 'make --eval="x:" build'), '--eval');
    expectUnseen(classify(worktree, 'make -C elsewhere'), 'directory outside');
  });

  it("SEC-5: an operator's command-prefix allow rule for `make build` still covers a Makefile the classifier cannot read", () => {
    const root = makeWorktree({ Makefile: 'CC = gcc\nbuild:\n\t$(CC) main.c\n' });
    const allowMakeBuild: PolicyRule = { id: 'make-build', scope: 'workspace', scopeId: 'ws_1', match: { kind: 'command', prefix: 'make build' } as RuleMatch, decision: 'allow' };
    expect(decide(root, 'make build')).toBe('ask');
    expect(decide(root, 'make build', [allowMakeBuild])).toBe('allow');
    // The prefix covers the make invocation: a readable recipe's own commands are classified as themselves.
    expect(decide(worktree, 'make clean', [{ ...allowMakeBuild, match: { kind: 'command', prefix: 'make clean' } }])).toBe('ask');
  });
});

describe('SEC-5: the worktree reader never reads outside', () => {
  it('SEC-5: reads regular files inside; refuses symlinks out, .., absolute paths, FIFOs-free paths and big files', () => {
    const root = makeWorktree({ 'a.txt': 'inside', 'big.txt': 'x'.repeat(300 * 1024) });
    symlinkSync(join(outside, 'evil.sh'), join(root, 'out-link'));
    symlinkSync(outside, join(root, 'out-dir'));
    const reader = worktreeFileReader(root);
    expect(reader.read('a.txt')).toBe('inside');
    expect(reader.read('out-link')).toBeNull();
    expect(reader.read('out-dir/evil.sh')).toBeNull();
    expect(reader.read('../evil.sh')).toBeNull();
    expect(reader.read(join(outside, 'evil.sh'))).toBeNull();
    expect(reader.read('big.txt')).toBeNull();
    expect(reader.read('missing')).toBeNull();
    expect(reader.exists('out-link')).toBe(true);
    expect(reader.exists('missing')).toBe(false);
  });

  it('SEC-5 (property): whatever relative path is asked, nothing outside the worktree is ever returned', () => {
    const root = makeWorktree({ 'a.txt': 'inside' });
    symlinkSync(outside, join(root, 'out'));
    const reader = worktreeFileReader(root);
    const segment = fc.constantFrom('..', '.', 'out', 'a.txt', 'evil.sh', 'benign.sh', 'Makefile', '', 'x');
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 5 }), (segments) => {
        const text = reader.read(segments.join('/'));
        expect(text === null || text === 'inside').toBe(true);
      }),
    );
  });
});

describe('SEC-5 over real HTTP: /policy/probe (no worktree: everything run from a file is unseen)', () => {
  let server: TestServer;
  let workspaceId: string;
  const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${workspaceId}${path}`, body);
  beforeAll(async () => {
    server = await startTestServer();
    workspaceId = (await createSeededWorkspace(server)).id;
  });
  afterAll(async () => {
    await server.dispose();
  });

  it.each(['bash d.sh', 'sh d.sh', './d.sh', 'source ./d.sh', 'python3 d.py', 'node x.js', 'npm run clean', 'make clean', 'npx tool', 'cat d.py | python3'])(
    'SEC-5: %s is denied under a fileDelete deny rule and asks without one',
    async (command) => {
      const before = (await api('POST', '/policy/probe', { command })).body;
      expect(before.decision).toBe('ask');
      expect(before.classes).toEqual(expect.arrayContaining([...UNKNOWN_CODE_CLASSES]));
      const rule = await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'class', effectClass: 'fileDelete' }, decision: 'deny' });
      try {
        expect((await api('POST', '/policy/probe', { command })).body).toMatchObject({ decision: 'deny', decidedBy: { scope: 'workspace', ruleId: rule.body.id } });
      } finally {
        await api('DELETE', `/policy/rules/${rule.body.id}`);
      }
    },
  );
});

describe('SEC-5 end to end: the built-in harness with the scripted model', () => {
  let fixture: HarnessFixture | null = null;
  afterEach(async () => {
    await fixture?.dispose();
    fixture = null;
  });

  it('SEC-5: under a fileDelete deny, bash d.sh / ./d.sh / python3 d.py / npm run clean never run; a benign script and npm test do', async () => {
    fixture = await startHarnessFixture();
    const api = (method: string, path: string, body?: unknown) => fixture!.server.api(method, `/api/workspaces/${fixture!.workspaceId}${path}`, body);
    const rule = await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'class', effectClass: 'fileDelete' }, decision: 'deny' });
    expect(rule.status).toBe(201);
    fixture.model.script(
      reply().tool('write', { path: 'victim.txt', content: 'keep me' }),
      reply().tool('write', { path: 'd.sh', content: DELETING_SCRIPT }),
      reply().tool('write', { path: 'd.py', content: 'import os\nos.remove("victim.txt")\n' }),
      reply().tool('write', { path: 'ok.sh', content: BENIGN_SCRIPT }),
      reply().tool('write', { path: 'package.json', content: JSON.stringify({ scripts: { clean: 'rm -f victim.txt', test: 'echo tested > tested.txt' } }) }),
      reply().tool('bash', { command: 'bash d.sh' }),
      reply().tool('bash', { command: 'chmod +x d.sh && ./d.sh' }),
      reply().tool('bash', { command: 'python3 d.py' }),
      reply().tool('bash', { command: 'npm run clean' }),
      reply().tool('bash', { command: 'bash ok.sh' }),
      reply().tool('bash', { command: 'npm test' }),
      reply().text('done'),
    );
    const detail = await fixture.waitForRun(await fixture.send('clean up'), 60_000);
    expect(detail.run.state).toBe('completed');
    const bashCalls = detail.toolCalls.filter((call: any) => call.name === 'bash');
    expect(bashCalls.map((call: any) => [call.input.command, call.decision, call.executed])).toEqual([
      ['bash d.sh', 'deny', false],
      ['chmod +x d.sh && ./d.sh', 'deny', false],
      ['python3 d.py', 'deny', false],
      ['npm run clean', 'deny', false],
      ['bash ok.sh', 'allow', true],
      ['npm test', 'allow', true],
    ]);
    const root = join(fixture.workspaceDir, 'worktrees', fixture.conversationId);
    expect(existsSync(join(root, 'victim.txt'))).toBe(true);
    expect(existsSync(join(root, 'out.txt'))).toBe(true);
  });
});

describe('SEC-5 end to end: Claude Code through its PreToolUse hook', () => {
  let fixture: ClaudeCodeFixture | null = null;
  afterEach(async () => {
    await fixture?.dispose();
    fixture = null;
  });

  it('SEC-5: under a fileDelete deny the hook denies `sh d.sh` and `python3 d.py`; a benign script runs', async () => {
    fixture = await startClaudeCodeFixture({ mode: 'chat', transport: { sandbox: 'none', allowUnsandboxed: true } });
    const f = fixture;
    const rule = await f.api('POST', `/api/workspaces/${f.workspaceId}/policy/rules`, { scope: 'workspace', match: { kind: 'class', effectClass: 'fileDelete' }, decision: 'deny' });
    expect(rule.status).toBe(201);
    f.model.script(
      reply().tool('Bash', { command: `printf 'keep me' > victim.txt && printf '${DELETING_SCRIPT.replace(/\n/g, '\\n')}' > d.sh && printf 'import os\\nos.remove("victim.txt")\\n' > d.py && printf 'echo hello > out.txt\\n' > ok.sh` }),
      reply().tool('Bash', { command: 'sh d.sh' }),
      reply().tool('Bash', { command: 'python3 d.py' }),
      reply().tool('Bash', { command: 'bash ok.sh' }),
      reply().text('done'),
    );
    const detail = await f.waitForRun(await f.send('clean up'), 60_000);
    expect(detail.run.state).toBe('completed');
    const bash = f.decisions.filter((entry) => entry.source === 'hook' && entry.toolName === 'Bash').map((entry) => [(entry.action as { command: string }).command, entry.allow]);
    expect(bash.slice(1)).toEqual([
      ['sh d.sh', false],
      ['python3 d.py', false],
      ['bash ok.sh', true],
    ]);
    expect(existsSync(join(f.worktreePath(), 'victim.txt'))).toBe(true);
    expect(existsSync(join(f.worktreePath(), 'out.txt'))).toBe(true);
  }, 120_000);
});
