import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyShellCommand, compilePolicy, decideAction, EFFECT_CLASSES, loadShellParser, shellAction, type PolicyContext } from '../../src/core/index.js';
import { startProbeServer, type ProbeServer } from '../support/policy-probe-server.js';
import { expectDeniedUnderClassRule } from '../support/probe-under-class-rule.js';

/**
 * SEC-5: an interpreter given code through an option rather than as its script operand. The option
 * tables read `php -f x.php`, `php -S`, `pwsh -File x.ps1`, `java -jar x.jar`, `elixir -r x.exs` as
 * options with a plain value, and perl's `-C`/`-x`/`-F` (whose values are attached) as taking the next
 * word, so `perl -C x.pl` — which runs x.pl (checked with perl 5.36) — was a bare process spawn that
 * no fileDelete or gitPush rule met. JVM-style runtimes have open-ended options that run programs
 * (`-javaagent:x.jar`, `-XX:OnOutOfMemoryError=CMD`): an option their table does not know is code.
 * The same options given through the environment (`JAVA_TOOL_OPTIONS`, read by every JVM), and
 * settings that load libraries or Ruby (`GCONV_PATH`, `OPENSSL_CONF`, `BUNDLE_GEMFILE`), are code too.
 */

const CONTEXT: PolicyContext = { mode: 'chat', autonomy: 'actWithApproval', workspaceId: 'ws_1' };
const DENY_DELETES = compilePolicy([{ id: 'no-delete', scope: 'workspace', scopeId: 'ws_1', match: { kind: 'class', effectClass: 'fileDelete' }, decision: 'deny' }]);

const CODE_THROUGH_OPTIONS = [
  'php -f tool.php',
  'php -S 127.0.0.1:8000',
  'php -d auto_prepend_file=tool.php -v',
  'php -c tool.ini',
  'pwsh -File tool.ps1',
  'powershell -File tool.ps1',
  'java -jar tool.jar',
  'java -javaagent:tool.jar -version',
  "java -XX:OnOutOfMemoryError='rm -rf src' -version",
  'elixir -r tool.exs',
  'perl -C tool.pl',
  'perl -x tool.pl',
  'perl -F tool.pl',
  'ruby -F tool.rb',
];

beforeAll(async () => {
  await loadShellParser();
});

describe('code named by an interpreter option is unseen code (SEC-5)', () => {
  it.each(CODE_THROUGH_OPTIONS.map((command) => [command]))('SEC-5: %s runs code the classifier cannot see: every class', (command) => {
    const result = classifyShellCommand(command);
    expect({ unknown: result.unknown, classes: result.classes }, command).toEqual({ unknown: true, classes: [...EFFECT_CLASSES] });
    expect(decideAction(DENY_DELETES, shellAction(result), CONTEXT).decision).toBe('deny');
  });

  it.each(['java -version', 'php -v', 'pwsh --version', 'perl -v', 'node --version'])('SEC-5: %s only prints a version', (command) => {
    expect(classifyShellCommand(command).classes, command).toEqual([]);
  });
});

describe('SEC-5 over real HTTP: /policy/probe under a fileDelete deny', () => {
  let server: ProbeServer;
  beforeAll(async () => {
    server = await startProbeServer();
  });
  afterAll(async () => {
    await server.dispose();
  });

  it('SEC-5: php -f, java -jar and perl -C on a worktree file are denied by the delete rule; a version query is allowed', async () => {
    await expectDeniedUnderClassRule(server, 'fileDelete', ['php -f tool.php', 'java -jar tool.jar', 'perl -C tool.pl'], 'java -version');
  });
});

describe('settings in the environment that load code (SEC-5)', () => {
  it.each([
    'JAVA_TOOL_OPTIONS=-javaagent:tool.jar java -version',
    '_JAVA_OPTIONS=-javaagent:tool.jar java -version',
    'JDK_JAVA_OPTIONS=-javaagent:tool.jar java -version',
    'GCONV_PATH=./gconv iconv -f UTF-8 -t UTF-7 notes.txt',
    'OPENSSL_CONF=./openssl.cnf curl https://example.org',
    'BUNDLE_GEMFILE=./Gemfile.tool bundle list',
    'export JAVA_TOOL_OPTIONS=-javaagent:tool.jar; java -version',
  ])('SEC-5: %s loads code the line does not show: every class', (command) => {
    const result = classifyShellCommand(command);
    expect({ unknown: result.unknown, classes: result.classes }, command).toEqual({ unknown: true, classes: [...EFFECT_CLASSES] });
  });
});
