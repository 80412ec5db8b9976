import { classifyShellCommand } from './shell/classify-command.js';

/**
 * Single approval per push (POL-6). When the operator approves a `git push` command line at a
 * run's gate (the Claude Code Bash hook, the built-in bash tool), the push proxy would otherwise ask
 * again for the very same push a second later. The approval therefore leaves a short-lived, single-use
 * grant that the proxy honours for the matching push of the same run. A grant only ever stands in for
 * an operator's "yes" to an `ask`: a push the policy denies stays denied, and a push no gate saw (one
 * made inside a script) finds no grant and is asked at the proxy.
 *
 * A grant covers only what the approved command names literally, read from the shell classifier's
 * parse (quotes, comments and separators resolved as the shell resolves them), never from a split of
 * the text: a remote and a list of destination refs, each either updated or (only under an explicit
 * `--delete` / `:ref`) deleted. A push whose words are not all static, that leaves its remote or refs
 * to git's defaults (`git push`, `git push origin`, `git push origin HEAD`), or that uses an option
 * widening what it sends (`--all`, `--mirror`, `--tags`, `--repo` …) gives no grant: the proxy asks
 * once more. The proxy matches a grant against the ref updates it parsed, not against a command line.
 * Whether an update is a fast-forward is not known before its pack arrives, so a grant does not
 * distinguish force pushes.
 */

/** The tool name the push proxy reports its pushes under (`git-push-proxy.ts`). */
export const PUSH_PROXY_TOOL_NAME = 'git-push-proxy';

/**
 * How long an approval at the gate covers the push it approved, at most. The built-in bash tool
 * drops a call's grants as soon as the call ends ({@link PushGrants.revoke}); a Claude Code Bash
 * command sends no completion to the gate, so there this bound (its Bash tool's default timeout) is all.
 */
export const PUSH_GRANT_TTL_MS = 2 * 60 * 1000;

/** One destination ref a push names: `main`, `refs/tags/v1`; `delete` when it removes the ref. */
export interface PushRefTarget {
  ref: string;
  delete: boolean;
}

/** What a literal `git push` names: its remote and each destination ref. */
export interface PushTarget {
  remote: string;
  refs: PushRefTarget[];
}

/** The push the proxy received: the remote's name and the ref updates of receive-pack (full ref names). */
export interface ProxyPush {
  remote: string;
  updates: readonly PushRefTarget[];
}

interface PushGrant extends PushTarget {
  command: string;
  callId: string | null;
  expiresAt: number;
}

/** `git push` options that change nothing about which refs go where. */
const HARMLESS_FLAGS = new Set([
  '-f', '--force', '--force-if-includes', '--no-force-if-includes', '--no-force-with-lease',
  '-u', '--set-upstream', '-q', '--quiet', '-v', '--verbose', '--progress', '--no-progress',
  '--verify', '--no-verify', '-n', '--dry-run', '--porcelain', '--atomic', '--no-atomic',
  '--thin', '--no-thin', '-4', '--ipv4', '-6', '--ipv6', '--signed', '--no-signed',
]);
/** Harmless options that take the next word as their value. */
const HARMLESS_WITH_VALUE = new Set(['-o', '--push-option']);
/** Harmless options written `--name=value`. */
const HARMLESS_WITH_INLINE_VALUE = ['--force-with-lease=', '--push-option=', '--signed='];

/** A destination the grant can name exactly: not a glob, not `HEAD`/`@` (which ref that is depends on the checkout). */
function namedRef(name: string): string | null {
  if (name === '' || name === 'HEAD' || name.startsWith('@') || name.includes('*')) return null;
  return name;
}

/** The target of one literal `git push` argv (`['git', 'push', …]`); null when it names less than everything it pushes. */
function targetOf(args: readonly string[]): PushTarget | null {
  const positionals: string[] = [];
  let deleting = false;
  for (let at = 0; at < args.length; at += 1) {
    const word = args[at]!;
    if (word === '--') {
      positionals.push(...args.slice(at + 1));
      break;
    }
    if (!word.startsWith('-') || word === '-') positionals.push(word);
    else if (word === '-d' || word === '--delete') deleting = true;
    else if (HARMLESS_WITH_VALUE.has(word)) at += 1;
    else if (!HARMLESS_FLAGS.has(word) && word !== '--force-with-lease' && !HARMLESS_WITH_INLINE_VALUE.some((prefix) => word.startsWith(prefix))) return null;
  }
  const [remote, ...refspecs] = positionals;
  if (remote === undefined || refspecs.length === 0) return null;
  const refs: PushRefTarget[] = [];
  for (const refspec of refspecs) {
    const spec = refspec.startsWith('+') ? refspec.slice(1) : refspec;
    const colon = spec.indexOf(':');
    if (deleting) {
      // `git push origin --delete old`: only plain names are deletes; anything else git itself rejects.
      const ref = colon === -1 ? namedRef(spec) : null;
      if (ref === null) return null;
      refs.push({ ref, delete: true });
      continue;
    }
    const ref = namedRef(colon === -1 ? spec : spec.slice(colon + 1));
    if (ref === null) return null;
    refs.push({ ref, delete: colon === 0 });
  }
  return { remote, refs };
}

/**
 * Every `git push` in a command line, as the shell classifier parsed it (the simple commands of lists,
 * pipelines, `sh -c`, `$(…)`), with what it names; a push it cannot name exactly is left out (no grant).
 * Requires the shell parser to be loaded (`loadShellParser`).
 */
export function pushTargets(command: string): PushTarget[] {
  const targets: PushTarget[] = [];
  for (const subcommand of classifyShellCommand(command).subcommands) {
    const [program, verb, ...args] = subcommand.argv;
    if (program !== 'git' || verb !== 'push' || !subcommand.literal) continue;
    const target = targetOf(args);
    if (target) targets.push(target);
  }
  return targets;
}

/**
 * Whether a ref the operator typed names the full ref the proxy received. A full ref matches only
 * itself. A short name is read as the branch it names when it is pushed: `main` is `refs/heads/main`
 * and nothing else — never `refs/tags/main` or a ref in another namespace, so an approval of
 * `git push origin main` cannot be spent on a tag (or a note, or a remote-tracking ref) of that name.
 * Where git itself would pick another namespace for a short name (a tag pushed by its short name, a
 * remote that has only a tag of that name), the grant does not cover the push and the proxy asks once more.
 */
function namesRef(typed: string, full: string): boolean {
  if (typed.startsWith('refs/')) return typed === full;
  return full === `refs/heads/${typed}`;
}

/** Whether `grant` covers the proxy's push: same remote, and every update one the operator approved, a delete only as a delete. */
function covers(grant: PushTarget, push: ProxyPush): boolean {
  if (grant.remote !== push.remote || push.updates.length === 0) return false;
  return push.updates.every((update) => grant.refs.some((approved) => approved.delete === update.delete && namesRef(approved.ref, update.ref)));
}

/**
 * The grants of ONE run (each run's gate owns its own instance, so another run can never use them).
 * `now` is injectable so expiry is tested without waiting.
 */
export class PushGrants {
  private grants: PushGrant[] = [];

  constructor(
    private readonly ttlMs: number = PUSH_GRANT_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Records the operator's approval of `command` (one grant per `git push` it names exactly); returns
   * how many. `callId` is the gated call, so its grants end with it ({@link revoke}).
   */
  grant(command: string, callId: string | null = null): number {
    const expiresAt = this.now() + this.ttlMs;
    const targets = pushTargets(command);
    for (const target of targets) this.grants.push({ ...target, command, callId, expiresAt });
    return targets.length;
  }

  /** Drops what is left of a call's grants once the call has ended: a push it did not make is not covered later. */
  revoke(callId: string): void {
    this.grants = this.grants.filter((grant) => grant.callId !== callId);
  }

  /** Uses up the grant covering the proxy's push; returns the approved command line it came from, or null (the proxy then asks). */
  take(push: ProxyPush): string | null {
    const now = this.now();
    this.grants = this.grants.filter((grant) => grant.expiresAt > now);
    const index = this.grants.findIndex((grant) => covers(grant, push));
    if (index === -1) return null;
    const [used] = this.grants.splice(index, 1);
    return used!.command;
  }
}
