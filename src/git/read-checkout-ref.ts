import { readConfinedFileSync } from '../worktree/read-confined-file.js';
import { isPlainBranchRef } from './read-ref-from-files.js';

/** A loose ref file as git writes it: one object name and a newline. */
const LOOSE_REF = /^([0-9a-f]{40}|[0-9a-f]{64})\n?$/;

/** A loose ref file is 41 or 65 bytes; anything much larger is not one. */
const MAX_REF_BYTES = 256;

/**
 * A branch's tip as the loose ref file of a conversation's checkout (`<checkout>/.git/<ref>`) holds
 * it, read by the server without starting a process (a sandboxed `git rev-parse` after
 * every run cost ~5 ms of server CPU per tool turn). Every byte of a checkout is the agent's (SEC-3),
 * so this is only a hint, read so that nothing in the checkout can act on the host:
 * - no program runs: no git, so no config, hook or fsmonitor of the checkout is ever looked at;
 * - the file is read through the confined reader rooted at the checkout (SEC-4): a `.git` or ref
 *   that is a link leading out of the checkout, a FIFO, a device or an oversized file reads as
 *   nothing, and a link swapped in mid-read cannot redirect it;
 * - the caller acts on the answer only when it names a commit the user's repository already has,
 *   which the agent could have pointed its branch at anyway; anything else is asked of git in the
 *   checkout's sandbox, as before.
 * Null whenever the file does not plainly hold an object name (a packed, symbolic or missing ref, a
 * `.git` file, a reftable repository): the caller then asks git. Synchronous: a handful of
 * descriptor-pinned metadata calls and one read of at most 256 bytes, cheaper than the thread pool's
 * round trips; the file is opened non-blocking, so a FIFO cannot stall the server.
 */
export function readCheckoutRefHint(worktreePath: string, ref: string): string | null {
  if (!isPlainBranchRef(ref)) return null;
  const bytes = readConfinedFileSync(worktreePath, `.git/${ref}`, { maxBytes: MAX_REF_BYTES });
  return bytes ? (LOOSE_REF.exec(bytes.toString('latin1'))?.[1] ?? null) : null;
}
