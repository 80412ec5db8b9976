/**
 * Single approval per push (POL-6). When the operator approves a `git push` command line at a
 * run's gate (the Claude Code Bash hook, the built-in bash tool), the push proxy would otherwise ask
 * again for the very same push a second later. The approval therefore leaves a short-lived, single-use
 * grant that the proxy honours for the matching push of the same run. A grant only ever stands in for
 * an operator's "yes" to an `ask`: a push the policy denies stays denied, and a push no gate saw (one
 * made inside a script) finds no grant and is asked at the proxy.
 */

/** The tool name the push proxy reports its pushes under (`git-push-proxy.ts`). */
export const PUSH_PROXY_TOOL_NAME = 'git-push-proxy';

/** How long an approval at the gate covers the push it approved. */
export const PUSH_GRANT_TTL_MS = 2 * 60 * 1000;

/** What a `git push` command line names: the remote and the destination refs, or null where it leaves them to git's defaults. */
export interface PushTarget {
  remote: string | null;
  /** Short destination ref names (`main`, `v1`); null when the command leaves them to git (`git push`, `git push origin HEAD`). */
  refs: string[] | null;
}

interface PushGrant extends PushTarget {
  command: string;
  expiresAt: number;
}

/** A plain shell word (no quoting, expansion or redirection): anything else makes a target unknown. */
const PLAIN_WORD = /^[A-Za-z0-9._/:@^~+=,%-]+$/;
/** git's global options that take the next word as their value (`git -C dir push`). */
const GLOBAL_WITH_VALUE = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--exec-path', '--config-env']);
/** `git push` options that take the next word as their value. */
const PUSH_WITH_VALUE = new Set(['-o', '--push-option', '--repo', '--receive-pack', '--exec']);

/** `refs/heads/main` and `refs/tags/v1` → `main`, `v1`: the proxy sees full names, people type short ones. */
function shortRef(ref: string): string {
  return ref.replace(/^refs\/(heads|tags)\//, '');
}

/** The destination ref of one refspec (`HEAD:refs/heads/x` → `x`, `+main` → `main`, `:old` → `old`); null for `HEAD`. */
function destination(refspec: string): string | null {
  const spec = refspec.startsWith('+') ? refspec.slice(1) : refspec;
  const colon = spec.indexOf(':');
  const target = colon === -1 ? spec : spec.slice(colon + 1);
  if (target === '' || target === 'HEAD' || target.startsWith('@')) return null;
  return shortRef(target);
}

/**
 * Every `git push` in a command line, with what it names. Simple command lists only (`a && git push
 * origin main`); a push whose words are not plain (quotes, `$VAR`, globs) is listed with an unknown
 * target, which matches only what the operator could not have read more precisely anyway.
 */
export function pushTargets(command: string): PushTarget[] {
  const targets: PushTarget[] = [];
  for (const segment of command.split(/&&|\|\||[;|\n]/)) {
    const words = segment.trim().split(/\s+/).filter((word) => word !== '');
    if (words[0] !== 'git') continue;
    let index = 1;
    while (index < words.length && words[index]!.startsWith('-')) index += GLOBAL_WITH_VALUE.has(words[index]!) ? 2 : 1;
    if (words[index] !== 'push') continue;
    const rest = words.slice(index + 1);
    if (!rest.every((word) => PLAIN_WORD.test(word))) {
      targets.push({ remote: null, refs: null });
      continue;
    }
    const positionals: string[] = [];
    for (let at = 0; at < rest.length; at += 1) {
      const word = rest[at]!;
      if (word === '--') {
        positionals.push(...rest.slice(at + 1));
        break;
      }
      if (PUSH_WITH_VALUE.has(word)) at += 1;
      else if (!word.startsWith('-')) positionals.push(word);
    }
    const [remote, ...refspecs] = positionals;
    const refs = refspecs.map(destination);
    targets.push({ remote: remote ?? null, refs: refs.length === 0 || refs.some((ref) => ref === null) ? null : (refs as string[]) });
  }
  return targets;
}

/** Whether `grant` covers the push the proxy received: same remote, and no ref the operator did not approve. */
function covers(grant: PushTarget, push: PushTarget): boolean {
  if (grant.remote !== null && grant.remote !== push.remote) return false;
  if (grant.refs === null) return true;
  if (push.refs === null) return false;
  return push.refs.every((ref) => grant.refs!.includes(ref));
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

  /** Records the operator's approval of `command` (one grant per `git push` in it); returns how many. */
  grant(command: string): number {
    const expiresAt = this.now() + this.ttlMs;
    const targets = pushTargets(command);
    for (const target of targets) this.grants.push({ ...target, command, expiresAt });
    return targets.length;
  }

  /**
   * Uses up the grant covering the proxy's push (its command line, as `pushCommandLine` writes it);
   * returns the approved command line it came from, or null when none covers it (the proxy then asks).
   */
  take(proxyCommand: string): string | null {
    const now = this.now();
    this.grants = this.grants.filter((grant) => grant.expiresAt > now);
    const [push] = pushTargets(proxyCommand);
    if (!push) return null;
    const index = this.grants.findIndex((grant) => covers(grant, push));
    if (index === -1) return null;
    const [used] = this.grants.splice(index, 1);
    return used!.command;
  }
}
