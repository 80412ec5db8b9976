import { lstatSync, statSync, type Stats } from 'node:fs';

/**
 * What is at `path` — the link itself with `noFollow`, what it points to with `follow` — or null when
 * nothing can be said (missing, a file where a folder was expected, no permission…). One synchronous
 * call: the server's per-run existence checks cost a few microseconds this way, where a round trip
 * through libuv's thread pool cost ~35 µs of CPU and woke two threads. A stat never blocks
 * on what it finds (a FIFO is not opened).
 */
export function statOrNull(path: string, links: 'follow' | 'noFollow'): Stats | null {
  try {
    return (links === 'follow' ? statSync(path, { throwIfNoEntry: false }) : lstatSync(path, { throwIfNoEntry: false })) ?? null;
  } catch {
    return null;
  }
}
