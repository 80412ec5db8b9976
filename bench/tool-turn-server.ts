/**
 * The server side of `tool-turn.bench.ts`, in a process of its own so that its CPU is the server's
 * alone: the scripted model server and the HTTP client stay in the bench's process. It starts the
 * real server (the bench passes the model endpoint in CC_BENCH_PROVIDER_ENV), sends `{url, token}`
 * over the IPC channel, then answers two requests:
 * - `{cpu: true}` → its own CPU so far and the CPU of its child processes (finished and live ones);
 *   with CC_BENCH_AB set, it first flips `process.env.CC_AB` between '1' and '0' and says which (`ab`);
 * - `{wait: runId}` → the same figures once that run has finished.
 * - `{profile: 'start' | 'stop'}` → starts the V8 CPU profiler (CC_BENCH_PROFILE_INTERVAL µs sampling, default 100), or stops it and
 *   writes the profile to `$CC_BENCH_CPU_PROFILE/tool-turn-server.cpuprofile` (the bench sends these
 *   around the measured turns only when that variable is set, so start-up and warm-up stay out of it).
 * The answers cost the server one IPC message each; nothing else runs in this process.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { startTestServer } from '../test/support/test-server.js';

interface Figures {
  /** This process's user + system CPU, ms (microsecond resolution). */
  serverMs: number;
  /** CPU of its children, ms: finished ones (cutime + cstime) plus live ones (a long-lived helper). */
  childrenMs: number;
  /** CPU of its threads other than the main one (V8's compiler and GC helpers, libuv's pool), ms, in 10 ms ticks. */
  otherThreadsMs: number;
}

/** USER_HZ on Linux. */
const TICK_MS = 10;

function statFields(pid: number | 'self' | `self/task/${string}`): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** Fields 14–17 of stat(5) (utime, stime, cutime, cstime) are 11–14 once the pid and name are cut off. */
function ticks(fields: string[] | null, from: number, to: number): number {
  if (!fields) return 0;
  let sum = 0;
  for (let index = from; index <= to; index += 1) sum += Number(fields[index]);
  return sum;
}

function liveChildren(pid: number | 'self'): number[] {
  const pids: number[] = [];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      try {
        pids.push(...readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
      } catch {
        // The thread ended while we listed it.
      }
    }
  } catch {
    // The process ended while we listed it.
  }
  return pids;
}

/**
 * Every live descendant, not only the children: the warm sandbox's helper and its commands run under
 * bubblewrap, so they are grandchildren (and their commands' CPU is in the helper's cutime once reaped).
 */
function liveDescendants(): number[] {
  const found: number[] = [];
  const queue = liveChildren('self');
  while (queue.length > 0) {
    const pid = queue.shift()!;
    found.push(pid);
    queue.push(...liveChildren(pid));
  }
  return found;
}

function childrenMs(): number {
  let childTicks = ticks(statFields('self'), 13, 14);
  // A live process: its own CPU and that of its children it has reaped; its live ones are in the list.
  for (const pid of liveDescendants()) childTicks += ticks(statFields(pid), 11, 14);
  return childTicks * TICK_MS;
}

/** Threads other than the main one: their CPU is in `serverMs` too, but no JavaScript profile shows it. */
function otherThreadsMs(): number {
  let threadTicks = 0;
  for (const task of readdirSync('/proc/self/task')) {
    if (Number(task) !== process.pid) threadTicks += ticks(statFields(`self/task/${task}`), 11, 12);
  }
  return threadTicks * TICK_MS;
}

function ownMs(): number {
  const own = process.cpuUsage();
  return (own.user + own.system) / 1000;
}

/**
 * Reading /proc costs this process CPU too, so it is kept out of the window a turn is measured in:
 * before a turn the children are read first and the server's own CPU last, after it the other way round.
 */
function figures(at: 'before' | 'after'): Figures {
  if (at === 'before') {
    const children = childrenMs();
    const threads = otherThreadsMs();
    return { serverMs: ownMs(), childrenMs: children, otherThreadsMs: threads };
  }
  const serverMs = ownMs();
  return { serverMs, childrenMs: childrenMs(), otherThreadsMs: otherThreadsMs() };
}

const server = await startTestServer({ env: JSON.parse(process.env.CC_BENCH_PROVIDER_ENV ?? '{}') as Record<string, string>, modelMaxRetries: 0 });
let profiler: Session | null = null;

async function profile(step: 'start' | 'stop'): Promise<void> {
  if (step === 'start') {
    profiler = new Session();
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.setSamplingInterval', { interval: Number(process.env.CC_BENCH_PROFILE_INTERVAL ?? 100) });
    await profiler.post('Profiler.start');
    return;
  }
  if (!profiler) return;
  const { profile: taken } = await profiler.post('Profiler.stop');
  profiler.disconnect();
  profiler = null;
  writeFileSync(join(process.env.CC_BENCH_CPU_PROFILE ?? '.', 'tool-turn-server.cpuprofile'), JSON.stringify(taken));
}

process.on('message', (message: { cpu?: boolean; wait?: string; stop?: boolean; profile?: 'start' | 'stop' }) => {
  void (async () => {
    if (message.profile) {
      await profile(message.profile);
      process.send?.({ profiled: message.profile });
      return;
    }
    if (message.cpu && process.env.CC_BENCH_AB) process.env.CC_AB = process.env.CC_AB === '1' ? '0' : '1';
    if (message.wait) await server.running.app.activeRuns.get(message.wait)?.finished;
    if (message.stop) {
      await server.dispose();
      process.send?.({ stopped: true }, () => process.exit(0));
      return;
    }
    process.send?.({ ...figures(message.wait ? 'after' : 'before'), ab: process.env.CC_AB });
  })();
});
process.send?.({ url: server.url, token: server.token });
