import { closeSync, constants, openSync, readlinkSync } from 'node:fs';

let supported: boolean | undefined;

/**
 * Whether this process can pin lookups to an open directory through `/proc/self/fd/<fd>/<name>`
 * (Linux with procfs mounted). Probed once: a directory is opened and its magic link read back.
 * Without it (macOS, a container without /proc) the file tools fall back to checking paths before
 * opening them, which a concurrent swap can race — a known limit, see docs/tools-and-worktrees.md.
 */
export function procFdSupported(): boolean {
  if (supported !== undefined) return supported;
  supported = false;
  if (process.platform !== 'linux') return supported;
  try {
    const fd = openSync('/', constants.O_RDONLY | constants.O_DIRECTORY);
    try {
      supported = readlinkSync(`/proc/self/fd/${fd}`) === '/';
    } finally {
      closeSync(fd);
    }
  } catch {
    supported = false;
  }
  return supported;
}
