/**
 * The program of the spawn helper (`spawn-helper.ts`), run with `node --input-type=module -e`. It is
 * plain JavaScript in a string, like the Claude Code hook script, so that it runs the same from the
 * TypeScript sources (tests, tsx) and from the build, with no loader and nothing else imported.
 *
 * Why a helper at all: Node starts a child by forking the calling process. Forking the server — a
 * few hundred MB of heap, several threads — costs it tens of ms of CPU per command and blocks its
 * event loop until the child has exec'd. The helper is a bare Node process; the server hands it each
 * command over an IPC channel and gets the result back, and the helper does the forking.
 *
 * What a command gets is decided by the server and passed as it is (argv, cwd, environment); the
 * helper adds nothing. Its lifecycle rules are the ones every command of the server had in-process:
 * - output: the head of stdout and of stderr kept up to `maxOutputBytes` each (null: all of it), or
 *   the newest bytes with `keepTail`;
 * - `detached`: the command leads its own process group; a timeout or a stop sends SIGTERM to the
 *   group, then SIGKILL after `killGraceMs` (0: SIGKILL at once); when the command exits, whatever
 *   it left running in its group is killed, and the pipes are waited for at most `drainMs`
 *   (null: until they close);
 * - not detached: a timeout or a stop kills the process itself.
 * - if the server goes away (the IPC channel closes), every command still running is killed with its
 *   group and the helper exits; if the helper dies, the server kills what it had started
 *   (`spawn-helper.ts`), having been told each pid on start (on the host only: in a warm sandbox's
 *   pid namespace everything ends with the helper, so no pid is asked for).
 *
 * Messages in: `{type: 'run', id, command, args, cwd, env, detached, timeoutMs, killGraceMs, drainMs,
 * maxOutputBytes, keepTail, reportPid}`, `{type: 'stop', id}`. Messages out: `{type: 'started', id, pid}`
 * (only with `reportPid`), `{type: 'exit', id, exitCode, signal, stdout, stderr, truncated, timedOut,
 * aborted}`, `{type: 'error', id, message, code}` (the command could not start).
 */
export const SPAWN_HELPER_SOURCE = String.raw`
import { spawn } from 'node:child_process';
import { closeSync, readdirSync, readFileSync } from 'node:fs';

// Descriptors the helper inherited without close-on-exec (whatever its starter left open) would pass
// to every command: Node's spawn keeps them, as exec does. They are closed before anything runs; the
// IPC channel is the helper's own, and Node opens everything else close-on-exec (SEC-11; the same
// rule as sandbox/inherited-descriptors.ts, repeated here because this program imports nothing).
// No /proc (macOS): nothing to list, nothing closed.
const inherited = process.platform === 'linux' ? readdirSync('/proc/self/fd') : [];
for (const name of inherited) {
  const fd = Number(name);
  if (fd <= 2 || fd === process.channel?.fd) continue;
  try {
    const flags = parseInt(/^flags:\s+([0-7]+)$/m.exec(readFileSync('/proc/self/fdinfo/' + fd, 'utf8'))?.[1] ?? '', 8);
    if (!Number.isNaN(flags) && (flags & 0o2000000) === 0) closeSync(fd);
  } catch {
    // The listing's own descriptor, gone already.
  }
}

const running = new Map();

// In a warm sandbox (its own pid namespace) the helper sweeps, whenever no command runs, every
// process that was not there when it started: what a command left behind outside its process group
// (setsid, a double fork) does not live on into the next command, as it would not have outlived a
// per-command sandbox. On the host the helper never does this (it would signal the whole machine).
const sweeping = process.argv.includes('--sweep-namespace');
const resident = new Set(sweeping ? readdirSync('/proc').filter((name) => /^[0-9]+$/.test(name)).map(Number) : []);
resident.add(process.pid);

function sweep() {
  if (!sweeping || running.size > 0) return;
  for (const name of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(name) || resident.has(Number(name))) continue;
    try {
      process.kill(Number(name), 'SIGKILL');
    } catch {
      // ESRCH: gone already.
    }
  }
}

function send(message) {
  if (process.connected) process.send(message);
}

function capped(limit, tail) {
  const chunks = [];
  let kept = 0;
  let truncated = false;
  return {
    push(chunk) {
      if (limit === null) { chunks.push(chunk); return; }
      if (tail) {
        chunks.push(chunk);
        kept += chunk.length;
        while (kept > limit) {
          truncated = true;
          const excess = kept - limit;
          if (chunks[0].length <= excess) { kept -= chunks.shift().length; continue; }
          chunks[0] = chunks[0].subarray(excess);
          kept -= excess;
        }
        return;
      }
      const room = limit - kept;
      if (room <= 0) { if (chunk.length > 0) truncated = true; return; }
      const piece = chunk.length > room ? chunk.subarray(0, room) : chunk;
      if (piece.length < chunk.length) truncated = true;
      chunks.push(piece);
      kept += piece.length;
    },
    bytes() { return Buffer.concat(chunks); },
    get truncated() { return truncated; },
  };
}

function start(request) {
  const { id } = request;
  let child;
  try {
    child = spawn(request.command, request.args, { cwd: request.cwd, env: request.env, detached: request.detached, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    send({ type: 'error', id, message: String(error && error.message), code: error && error.code });
    return;
  }
  const stdout = capped(request.maxOutputBytes, request.keepTail);
  const stderr = capped(request.maxOutputBytes, request.keepTail);
  child.stdout.on('data', (chunk) => stdout.push(chunk));
  child.stderr.on('data', (chunk) => stderr.push(chunk));
  let timedOut = false;
  let aborted = false;
  let killTimer;
  let drainTimer;
  let settled = false;
  const kill = (signal) => {
    if (child.pid === undefined) return;
    try {
      if (request.detached) process.kill(-child.pid, signal);
      else child.kill(signal);
    } catch {
      // ESRCH: already gone.
    }
  };
  const stop = () => {
    if (killTimer) return;
    if (request.killGraceMs === 0) { kill('SIGKILL'); killTimer = true; return; }
    kill('SIGTERM');
    killTimer = setTimeout(() => kill('SIGKILL'), request.killGraceMs);
  };
  const timeoutTimer = setTimeout(() => { timedOut = true; stop(); }, request.timeoutMs);
  let exited;
  const finish = (exitCode, signal) => {
    if (settled) return;
    settled = true;
    running.delete(id);
    clearTimeout(timeoutTimer);
    if (killTimer && killTimer !== true) clearTimeout(killTimer);
    if (drainTimer) clearTimeout(drainTimer);
    sweep();
    send({ type: 'exit', id, exitCode, signal, stdout: stdout.bytes(), stderr: stderr.bytes(), truncated: stdout.truncated || stderr.truncated, timedOut, aborted });
  };
  running.set(id, { stop: () => { aborted = true; stop(); }, kill });
  child.once('error', (error) => {
    if (settled) return;
    settled = true;
    running.delete(id);
    clearTimeout(timeoutTimer);
    if (killTimer && killTimer !== true) clearTimeout(killTimer);
    sweep();
    send({ type: 'error', id, message: String(error && error.message), code: error && error.code });
  });
  // Only a server that may have to kill the command itself needs its pid: the message wakes it up.
  if (request.reportPid) child.once('spawn', () => send({ type: 'started', id, pid: child.pid }));
  child.once('exit', (code, signal) => {
    exited = { code, signal };
    if (!request.detached) return;
    // Whatever the command left running in its group goes with it; that also closes the pipes.
    kill('SIGKILL');
    // A process that left the group (setsid) may still hold the pipes; do not wait for it forever.
    if (request.drainMs !== null) {
      drainTimer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish(code, signal);
      }, request.drainMs);
    }
  });
  child.once('close', (code, signal) => finish(exited ? exited.code : code, exited ? exited.signal : signal));
}

process.on('message', (message) => {
  if (message.type === 'run') start(message);
  else if (message.type === 'stop') running.get(message.id)?.stop();
});

// The server is gone: nothing it started may outlive it.
process.on('disconnect', () => {
  for (const command of running.values()) command.kill('SIGKILL');
  process.exit(0);
});
`;
