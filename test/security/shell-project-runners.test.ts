import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyShellCommand, compilePolicy, decideAction, EFFECT_CLASSES, loadShellParser, shellAction, type PolicyContext } from '../../src/core/index.js';
import { startProbeServer, type ProbeServer } from '../support/policy-probe-server.js';
import { expectDeniedUnderClassRule } from '../support/probe-under-class-rule.js';

/**
 * POL-2, SEC-5: project runners that start a command in their environment (`uv run`, `poetry run`,
 * `bundle exec`) read as a bare process spawn, so `uv run rm -rf src` met no fileDelete rule and
 * `poetry run git push` no push deny. Now the carried command is classified; a runner option the
 * table does not know makes the command unknown rather than guessed. Runners of code the classifier
 * cannot read — `bundle exec` (the Gemfile is Ruby), `composer run/exec/test`, `uv tool run` (`uvx`),
 * `uv run -m`/`--script` — and Python
 * modules that run code they are given (`python -m timeit STATEMENT`, `cProfile`/`profile`/`trace`/
 * `pdb` on a script, `pydoc` importing what it documents) are unseen code, like `python -c`.
 */

const CONTEXT: PolicyContext = { mode: 'chat', autonomy: 'actWithApproval', workspaceId: 'ws_1' };
const DENY_DELETES = compilePolicy([{ id: 'no-delete', scope: 'workspace', scopeId: 'ws_1', match: { kind: 'class', effectClass: 'fileDelete' }, decision: 'deny' }]);

beforeAll(async () => {
  await loadShellParser();
});

describe('project runners are classified by the command they start (POL-2, SEC-5)', () => {
  it.each(['uv run rm -rf src', 'uv run --frozen --with requests rm -rf src', 'uv run -- rm -rf src', 'poetry run rm -rf src', 'bundle exec rm -rf src'])(
    'POL-2: %s deletes: fileDelete, denied under a delete deny',
    (command) => {
      const result = classifyShellCommand(command);
      expect(result.classes, command).toContain('fileDelete');
      expect(decideAction(DENY_DELETES, shellAction(result), CONTEXT).decision).toBe('deny');
    },
  );

  it.each([
    'uv run --unknown-option x rm -rf src',
    'uv tool run ruff',
    'uv run -m mymodule',
    'uv run --script tool.py',
    'composer run build',
    'composer exec phpunit',
    'composer test',
    'bundle exec rspec',
    "python3 -m timeit 'import shutil; shutil.rmtree(\"src\")'",
    'python3 -m cProfile tool.py',
    'python3 -m pydoc ./tool.py',
  ])('SEC-5: %s runs code the classifier cannot see: every class', (command) => {
    const result = classifyShellCommand(command);
    expect({ unknown: result.unknown, classes: result.classes }, command).toEqual({ unknown: true, classes: [...EFFECT_CLASSES] });
  });

  it.each(['poetry run pytest', 'uv run pytest -q', 'poetry install', 'python3 -m pytest'])('POL-2: %s runs a known tool: no delete, not unknown', (command) => {
    const result = classifyShellCommand(command);
    expect(result.unknown, command).toBe(false);
    expect(result.classes, command).not.toContain('fileDelete');
  });

  it('POL-2: python -m json.tool IN OUT writes OUT', () => {
    expect(classifyShellCommand('python3 -m json.tool in.json /tmp/out.json').classes).toContain('fileWriteOutsideWorktree');
  });
});

describe('POL-2 over real HTTP: /policy/probe under a fileDelete deny', () => {
  let server: ProbeServer;
  beforeAll(async () => {
    server = await startProbeServer();
  });
  afterAll(async () => {
    await server.dispose();
  });

  it('POL-2: deletes started by uv run, poetry run, bundle exec and python -m timeit are denied; pytest through poetry is allowed', async () => {
    await expectDeniedUnderClassRule(server, 'fileDelete', ['uv run rm -rf src', 'poetry run rm -rf src', 'bundle exec rm -rf src', "python3 -m timeit 'import shutil; shutil.rmtree(\"src\")'"], 'poetry run pytest');
  });
});
