import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyShellCommand, compilePolicy, decideAction, EFFECT_CLASSES, loadShellParser, shellAction, type PolicyContext } from '../../src/core/index.js';
import { startProbeServer, type ProbeServer } from '../support/policy-probe-server.js';
import { expectDeniedUnderClassRule } from '../support/probe-under-class-rule.js';

/**
 * SEC-5: bash evaluates array subscripts in arithmetic, in variable names given to builtins and in
 * prompt expansion, and a subscript's `$(…)` runs. Each line below ran `git push` under bash 5.2
 * (checked by hand) while the classifier read nothing at all: the code sits in a quoted string or in a
 * variable's value, never where a command is. Such text, and arithmetic on a variable this line fills
 * from command output or a file, is unseen code now: every class.
 */

const CONTEXT: PolicyContext = { mode: 'chat', autonomy: 'actWithApproval', workspaceId: 'ws_1' };
const DENY_PUSHES = compilePolicy([{ id: 'no-push', scope: 'workspace', scopeId: 'ws_1', match: { kind: 'class', effectClass: 'gitPush' }, decision: 'deny' }]);

const EVALUATED = [
  "x='$(git push)'; echo ${x@P}",
  "x='a[$(git push)]'; [[ $x -eq 1 ]]",
  "x='a[$(git push)]'; echo $(( x ))",
  "x='a[$(git push)]'; (( x ))",
  "x='a[$(git push)]'; a=(1 2); echo ${a[x]}",
  "x='a[$(git push)]'; echo ${!x}",
  "x='a[$(git push)]' bash -c '(( x ))'",
  "declare -i i; i='a[$(git push)]'",
  "declare -n r='a[$(git push)]'; echo $r",
  "read 'a[$(git push)]' <<< 1",
  "printf -v 'a[$(git push)]' x",
  "declare 'a[$(git push)]=1'",
  "export 'a[$(git push)]=1'",
  "test -v 'a[$(git push)]'",
  "[[ -v 'a[$(git push)]' ]]",
  "let 'a[$(git push)]'",
  "getopts a 'a[$(git push)]'",
  "mapfile -t 'a[$(git push)]' < list.txt",
  "wait -n -p 'a[$(git push)]'",
  // Assigned by a default expansion, an eval string or as a positional parameter.
  ": ${x:='a[$(git push)]'}; (( x ))",
  "eval \"x='a[\\$(git push)]'\"; (( x ))",
  "bash -c '(( $1 ))' _ 'a[$(git push)]'",
  "set -- 'a[$(git push)]'; [[ $1 -eq 0 ]]",
  "f() { (( $1 )); }; f 'a[$(git push)]'",
  // The value comes from a file the agent wrote: what it holds is not known when classifying.
  'n=$(cat count.txt); (( n > 0 ))',
  'read -r n < count.txt; [[ $n -gt 0 ]]',
  '[[ $(cat count.txt) -gt 0 ]]',
];

/** Arithmetic on numbers, loop counters and the environment evaluates nothing an agent wrote. */
const PLAIN = [
  'for ((i=0;i<10;i++)); do echo $i; done',
  'i=0; (( i++ )); echo $i',
  'echo $(( 1 + 2 ))',
  '[[ $# -gt 0 ]] && echo yes',
  '[ "$n" -gt 0 ]',
  'for i in 1 2 3; do echo $((i*2)); done',
  'count=3; echo $((count + 1))',
  'read -r line < notes.txt; echo "$line"',
  'declare -a arr=(1 2 3); echo ${arr[1]}',
  'echo ${PATH:0:5}',
];

beforeAll(async () => {
  await loadShellParser();
});

describe('text bash evaluates as code is unseen code (SEC-5)', () => {
  it.each(EVALUATED.map((command) => [command]))('SEC-5: %s runs code the line does not show: every class, denied under a push deny', (command) => {
    const result = classifyShellCommand(command);
    expect({ unknown: result.unknown, classes: result.classes }, command).toEqual({ unknown: true, classes: [...EFFECT_CLASSES] });
    expect(decideAction(DENY_PUSHES, shellAction(result), CONTEXT).decision).toBe('deny');
  });

  it.each(PLAIN.map((command) => [command]))('SEC-5: %s evaluates nothing an agent wrote', (command) => {
    const result = classifyShellCommand(command);
    expect(result.unknown, command).toBe(false);
    expect(result.classes, command).toEqual([]);
  });
});

describe('SEC-5 over real HTTP: /policy/probe under a gitPush deny', () => {
  let server: ProbeServer;
  beforeAll(async () => {
    server = await startProbeServer();
  });
  afterAll(async () => {
    await server.dispose();
  });

  it('SEC-5: a push hidden in an arithmetic subscript, a builtin name or a prompt expansion is denied; plain arithmetic is allowed', async () => {
    await expectDeniedUnderClassRule(server, 'gitPush', ["x='a[$(git push)]'; (( x ))", "read 'a[$(git push)]' <<< 1", "x='$(git push)'; echo ${x@P}", 'n=$(cat count.txt); (( n > 0 ))'], 'echo $(( 1 + 2 ))');
  });
});
