/**
 * The spawn helper's program in Python, for warm sandboxes where a `python3` ≥ 3.8 is
 * installed: the same rules, messages and results as the Node program (`spawn-helper-source.ts`),
 * with one difference in how a command starts. Node forks (libuv has no vfork on Linux), and forking
 * a 50 MB Node process costs, on a virtual machine, ~6 ms of CPU in the helper and ~6 ms more in the
 * child before its `exec` — most of a `bash -c true`'s 15 ms. Python's `os.posix_spawn` is glibc's,
 * which starts the child with `clone(CLONE_VM | CLONE_VFORK)`: no copy of the address space at all.
 *
 * What the command gets is what the Node helper gives it: argv as passed (the program looked up in
 * the command's own PATH, as execvp does), exactly the environment passed, the cwd passed, stdin from
 * /dev/null, stdout and stderr on pipes, every signal's default action and an empty signal mask (Python
 * itself ignores SIGPIPE and SIGXFSZ: those are put back, so `yes | head -1` ends as it should), no
 * other descriptor, and with `detached` a session (and process group) of its own. One difference
 * shows in /proc only: glibc's posix_spawn leaves its own two internal signals (32 and 33, which no
 * program but glibc uses, and glibc installs its handlers over) ignored in the child. Messages are JSON
 * lines on the helper's stdin and stdout instead of Node's IPC channel, and the output bytes travel in
 * base64; `spawn-helper.ts` speaks both.
 *
 * The helper is single-threaded: it changes its own working directory to the command's before each
 * spawn (glibc's posix_spawn has no portable chdir action), which nothing else in it depends on.
 */
export const VFORK_HELPER_SOURCE = String.raw`
import base64, errno, json, os, selectors, signal, sys, time

SWEEPING = '--sweep-namespace' in sys.argv

def proc_pids():
    return {int(name) for name in os.listdir('/proc') if name.isdigit()}

# In a warm sandbox (its own pid namespace): whatever was not there at the start is killed whenever no
# command runs (see spawn-helper-source.ts).
RESIDENT = proc_pids() if SWEEPING else set()
RESIDENT.add(os.getpid())

# Descriptors the helper inherited beyond its channel (whatever started the server left open without
# close-on-exec) are not passed on to the commands: posix_spawn, like exec, keeps every descriptor
# not marked so.
for name in os.listdir('/proc/self/fd'):
    if int(name) > 2:
        try:
            os.set_inheritable(int(name), False)
        except OSError:
            pass
DEFAULT_SIGNALS = {s for s in signal.valid_signals() if s not in (signal.SIGKILL, signal.SIGSTOP)}
DEFAULT_PATH = '/bin:/usr/bin'

running = {}
selector = selectors.DefaultSelector()
inbox = b''

def send(message):
    data = (json.dumps(message, separators=(',', ':')) + '\n').encode()
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(1, view):]
        except BrokenPipeError:
            return
        except InterruptedError:
            continue

def sweep():
    if not SWEEPING or running:
        return
    for pid in proc_pids() - RESIDENT:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass

def node_bytes(text):
    # What Node passes for a string: UTF-8, a lone surrogate (JSON can carry one) as U+FFFD. Left to
    # Python, it would fail the spawn, or become a raw byte through surrogateescape.
    return text.encode('utf-16', 'surrogatepass').decode('utf-16', 'replace').encode('utf-8')

def resolve(command, env):
    # execvp's lookup, in the command's PATH (not the helper's).
    if '/' in command:
        return command
    denied = False
    for directory in env.get('PATH', DEFAULT_PATH).split(':'):
        candidate = os.path.join(directory or '.', command)
        if os.path.isfile(candidate):
            if os.access(candidate, os.X_OK):
                return candidate
            denied = True
    raise OSError(errno.EACCES if denied else errno.ENOENT, os.strerror(errno.EACCES if denied else errno.ENOENT))

class Capped:
    def __init__(self, limit, tail):
        self.limit, self.tail, self.chunks, self.kept, self.truncated = limit, tail, [], 0, False
    def push(self, chunk):
        if self.limit is None:
            self.chunks.append(chunk)
            return
        if self.tail:
            self.chunks.append(chunk)
            self.kept += len(chunk)
            while self.kept > self.limit:
                self.truncated = True
                excess = self.kept - self.limit
                if len(self.chunks[0]) <= excess:
                    self.kept -= len(self.chunks.pop(0))
                    continue
                self.chunks[0] = self.chunks[0][excess:]
                self.kept -= excess
            return
        room = self.limit - self.kept
        if room <= 0:
            if chunk:
                self.truncated = True
            return
        piece = chunk[:room]
        if len(piece) < len(chunk):
            self.truncated = True
        self.chunks.append(piece)
        self.kept += len(piece)
    def text(self):
        return base64.b64encode(b''.join(self.chunks)).decode('ascii')

class Command:
    def __init__(self, request, pid, out_fd, err_fd):
        self.id, self.pid, self.request = request['id'], pid, request
        self.detached = bool(request.get('detached'))
        self.outputs = {out_fd: Capped(request.get('maxOutputBytes'), request.get('keepTail')), err_fd: Capped(request.get('maxOutputBytes'), request.get('keepTail'))}
        self.out_fd, self.err_fd, self.open_fds = out_fd, err_fd, {out_fd, err_fd}
        self.timed_out = self.aborted = self.stopping = False
        self.kill_at = self.drain_at = None
        self.timeout_at = time.monotonic() + request['timeoutMs'] / 1000
        self.exited = None
    def kill(self, sig):
        try:
            if self.detached:
                os.killpg(self.pid, sig)
            else:
                os.kill(self.pid, sig)
        except OSError:
            pass
    def stop(self):
        if self.stopping:
            return
        self.stopping = True
        if self.request['killGraceMs'] == 0:
            self.kill(signal.SIGKILL)
            return
        self.kill(signal.SIGTERM)
        self.kill_at = time.monotonic() + self.request['killGraceMs'] / 1000
    def close_pipes(self):
        for fd in list(self.open_fds):
            selector.unregister(fd)
            os.close(fd)
        self.open_fds.clear()
    def finish(self):
        self.close_pipes()
        running.pop(self.id, None)
        sweep()
        code, sig = self.exited
        send({'type': 'exit', 'id': self.id, 'exitCode': code, 'signal': sig,
              'stdout': self.outputs[self.out_fd].text(), 'stderr': self.outputs[self.err_fd].text(),
              'truncated': self.outputs[self.out_fd].truncated or self.outputs[self.err_fd].truncated,
              'timedOut': self.timed_out, 'aborted': self.aborted})
    def on_exit(self, status):
        if os.WIFSIGNALED(status):
            self.exited = (None, signal.Signals(os.WTERMSIG(status)).name)
        else:
            self.exited = (os.WEXITSTATUS(status), None)
        if self.detached:
            # Whatever the command left running in its group goes with it; that also closes the pipes.
            self.kill(signal.SIGKILL)
            if self.request.get('drainMs') is not None:
                self.drain_at = time.monotonic() + self.request['drainMs'] / 1000
        self.settle()
    def settle(self):
        if self.exited is not None and not self.open_fds:
            self.finish()

def start(request):
    out_r = out_w = err_r = err_w = None
    try:
        env = request['env']
        path = resolve(request['command'], env)
        os.chdir(node_bytes(request['cwd']))
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        pid = os.posix_spawn(node_bytes(path), [node_bytes(arg) for arg in [request['command']] + request['args']],
            {node_bytes(name): node_bytes(value) for name, value in env.items()},
            file_actions=[(os.POSIX_SPAWN_OPEN, 0, '/dev/null', os.O_RDONLY, 0), (os.POSIX_SPAWN_DUP2, out_w, 1), (os.POSIX_SPAWN_DUP2, err_w, 2)],
            setsid=bool(request.get('detached')), setsigdef=DEFAULT_SIGNALS, setsigmask=())
    except (OSError, ValueError, TypeError) as error:
        for fd in (out_r, out_w, err_r, err_w):
            if fd is not None:
                os.close(fd)
        sweep()
        if isinstance(error, OSError):
            code = errno.errorcode.get(error.errno, 'UNKNOWN') if error.errno else 'UNKNOWN'
            send({'type': 'error', 'id': request['id'], 'message': 'spawn %s %s' % (request['command'], code), 'code': code})
        else:
            # A NUL byte in an argument or the environment: refused before anything starts, as Node does.
            send({'type': 'error', 'id': request['id'], 'message': 'spawn %s: %s' % (request['command'], error), 'code': 'ERR_INVALID_ARG_VALUE'})
        return
    os.close(out_w)
    os.close(err_w)
    command = Command(request, pid, out_r, err_r)
    running[command.id] = command
    for fd in (out_r, err_r):
        os.set_blocking(fd, False)
        selector.register(fd, selectors.EVENT_READ, command)
    if request.get('reportPid'):
        send({'type': 'started', 'id': command.id, 'pid': pid})

def kill_all_and_exit():
    for command in list(running.values()):
        command.kill(signal.SIGKILL)
    os._exit(0)

def on_input():
    global inbox
    try:
        data = os.read(0, 65536)
    except InterruptedError:
        return
    if not data:
        # The server is gone: nothing it started may outlive it.
        kill_all_and_exit()
    inbox += data
    while b'\n' in inbox:
        line, inbox = inbox.split(b'\n', 1)
        message = json.loads(line)
        if message['type'] == 'run':
            start(message)
        elif message['type'] == 'stop' and message['id'] in running:
            command = running[message['id']]
            command.aborted = True
            command.stop()

def reap():
    for command in list(running.values()):
        if command.exited is not None:
            continue
        try:
            pid, status = os.waitpid(command.pid, os.WNOHANG)
        except ChildProcessError:
            continue
        if pid == command.pid:
            command.on_exit(status)

def on_timers():
    now = time.monotonic()
    for command in list(running.values()):
        if command.exited is None and not command.timed_out and now >= command.timeout_at:
            command.timed_out = True
            command.stop()
        if command.kill_at is not None and now >= command.kill_at:
            command.kill_at = None
            command.kill(signal.SIGKILL)
        if command.drain_at is not None and now >= command.drain_at and command.id in running:
            # A process that left the group (setsid) may still hold the pipes; do not wait for it forever.
            command.drain_at = None
            command.finish()

def next_timeout():
    deadlines = []
    for command in running.values():
        if command.exited is None and not command.timed_out:
            deadlines.append(command.timeout_at)
        if command.kill_at is not None:
            deadlines.append(command.kill_at)
        if command.drain_at is not None:
            deadlines.append(command.drain_at)
    return max(0, min(deadlines) - time.monotonic()) if deadlines else None

wake_r, wake_w = os.pipe()
os.set_blocking(wake_r, False)
os.set_blocking(wake_w, False)
signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
signal.signal(signal.SIGCHLD, lambda number, frame: None)
signal.signal(signal.SIGPIPE, signal.SIG_IGN)
selector.register(0, selectors.EVENT_READ, 'input')
selector.register(wake_r, selectors.EVENT_READ, 'wake')

while True:
    for key, _ in selector.select(next_timeout()):
        if key.data == 'input':
            on_input()
        elif key.data == 'wake':
            try:
                while os.read(wake_r, 512):
                    pass
            except BlockingIOError:
                pass
            reap()
        else:
            command = key.data
            # A command that finished earlier in this batch closed its pipes (and a new one may hold
            # the same descriptor numbers now): its remaining events are stale.
            if key.fd not in command.open_fds:
                continue
            try:
                chunk = os.read(key.fd, 65536)
            except BlockingIOError:
                continue
            if chunk:
                command.outputs[key.fd].push(chunk)
            else:
                selector.unregister(key.fd)
                os.close(key.fd)
                command.open_fds.discard(key.fd)
                command.settle()
    reap()
    on_timers()
`;
