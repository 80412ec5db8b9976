import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/**
 * Every descendant of `rootPid` (children first discovered, then theirs), from one `ps` snapshot.
 * Needed because Claude Code starts each Bash command in a process group of its own, so signalling
 * the CLI's group does not reach them.
 */
export async function descendantsOf(rootPid: number): Promise<number[]> {
  let stdout: string;
  try {
    ({ stdout } = await execFileAsync('ps', ['-A', '-o', 'pid=,ppid='], { timeout: 5_000 }));
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  for (const line of stdout.split('\n')) {
    const [pid, ppid] = line.trim().split(/\s+/).map(Number);
    if (!pid || ppid === undefined || Number.isNaN(ppid)) continue;
    const list = children.get(ppid) ?? [];
    list.push(pid);
    children.set(ppid, list);
  }
  const found: number[] = [];
  const queue = [rootPid];
  while (queue.length > 0) {
    const next = children.get(queue.shift()!) ?? [];
    for (const pid of next) {
      if (found.includes(pid)) continue;
      found.push(pid);
      queue.push(pid);
    }
  }
  return found;
}

/** Signals a process, its process group, and every descendant and their groups; missing ones are ignored. */
export async function signalProcessTree(rootPid: number, signal: NodeJS.Signals, knownDescendants: readonly number[] = []): Promise<number[]> {
  const descendants = [...new Set([...knownDescendants, ...(await descendantsOf(rootPid))])];
  for (const pid of [rootPid, ...descendants]) {
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, signal);
      } catch {
        // already gone, or not a group leader
      }
    }
  }
  return descendants;
}
