import { closeSync, readdirSync, readFileSync } from 'node:fs';

/** O_CLOEXEC as /proc/<pid>/fdinfo/<fd> shows it in `flags` (octal). */
const CLOSE_ON_EXEC = 0o2000000;

/**
 * Closes every descriptor this process inherited without close-on-exec, other than its stdio and
 * its IPC channel, and returns their numbers (SEC-11). Whoever starts the server (a service
 * manager, a wrapper script, a test runner) may leave such descriptors open; Node's `spawn` passes
 * every one of them on to each child, and a descriptor on a file the sandbox hides stays readable
 * through /proc/self/fd/N from inside it. The server uses none of them, so it closes them first
 * thing, before anything is spawned. Node opens its own descriptors close-on-exec, so only inherited
 * ones match. Linux only (it reads /proc); elsewhere nothing is closed.
 */
export function closeInheritedDescriptors(): number[] {
  if (process.platform !== 'linux') return [];
  const channel = (process.channel as { fd?: number } | undefined)?.fd;
  const closed: number[] = [];
  let names: string[];
  try {
    names = readdirSync('/proc/self/fd');
  } catch {
    return [];
  }
  for (const name of names) {
    const fd = Number(name);
    if (fd <= 2 || fd === channel) continue;
    let flags: number;
    try {
      flags = parseInt(/^flags:\s+([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))?.[1] ?? '', 8);
    } catch {
      // Gone: the directory's own descriptor from the listing above.
      continue;
    }
    if (Number.isNaN(flags) || (flags & CLOSE_ON_EXEC) !== 0) continue;
    try {
      closeSync(fd);
      closed.push(fd);
    } catch {
      // Closed already.
    }
  }
  return closed;
}
