import type { EffectClass } from '../../effect-classes.js';
import { NO_EFFECT, type ProgramOutcome, type ProgramRule } from '../program-outcome.js';
import type { ShellWord } from '../shell-words.js';

/**
 * Container runtimes (docker, podman, nerdctl, compose, containerd's `ctr`, `crictl`, LXD's `lxc`,
 * `kubectl`) classified by what the container can reach (POL-2). The runtime's daemon is root on the
 * host: a container given a host path, the host's namespaces, devices, extra capabilities or
 * privileges can change anything the host can, and runs code (the image's) the classifier never sees.
 *
 * - Host reach — bind mounts (`-v /:/host`, `-v "$PWD":/src`, `--mount type=bind`, volume options that
 *   bind), `--privileged`, `--pid|--net|--ipc|--uts|--userns|--cgroupns=host`, `--cap-add`, `--device`,
 *   `--security-opt`, `--volumes-from`, a host directory as root filesystem — and every command that
 *   runs code in a container whose configuration the command line does not show (`exec`, `start`,
 *   `compose up`, `crictl run CONFIG`, `kubectl apply`) gets the unknown-code classes: every class,
 *   so it is never allowed by default, and a deny on any class refuses it.
 * - A container with none of that is a sandbox: `sandboxControl` + `processSpawn`, and `networkEgress`
 *   (it has the network unless told otherwise, and its image may be pulled).
 * - Pulling, pushing, logging in and searching are `networkEgress`; removing containers, volumes and
 *   data is `fileDelete`; files copied out of a container (`cp`, `save -o`) are writes by location.
 * - An option or subcommand this table does not know is host reach: unknown is never read.
 */

const SANDBOX: ProgramOutcome = { classes: ['sandboxControl', 'processSpawn'] };
const HOST_REACH: ProgramOutcome = { classes: ['sandboxControl', 'processSpawn', 'networkEgress'], unknownCode: true };
const EGRESS: ProgramOutcome = { classes: ['sandboxControl', 'processSpawn', 'networkEgress'] };

function sandboxWith(...classes: EffectClass[]): ProgramOutcome {
  return { classes: ['sandboxControl', 'processSpawn', ...classes] };
}

/** Options of `run`/`create` (docker, podman, nerdctl): which take a value, which are flags, which reach the host. */
interface RunOptionSpec {
  /** Short letters that take a value. */
  readonly shortValues: string;
  /** Short letters that are flags. */
  readonly shortFlags: string;
  /** Long options that take a value. */
  readonly longValues: ReadonlySet<string>;
  /** Long options that are flags. */
  readonly longFlags: ReadonlySet<string>;
}

const DOCKER_RUN: RunOptionSpec = {
  shortValues: 'acehlmpuvw',
  shortFlags: 'ditPq',
  longValues: new Set([
    'add-host', 'annotation', 'attach', 'blkio-weight', 'blkio-weight-device', 'cap-add', 'cap-drop', 'cgroup-parent', 'cgroupns', 'cidfile',
    'cpu-period', 'cpu-quota', 'cpu-rt-period', 'cpu-rt-runtime', 'cpu-shares', 'cpus', 'cpuset-cpus', 'cpuset-mems', 'device', 'device-cgroup-rule',
    'device-read-bps', 'device-read-iops', 'device-write-bps', 'device-write-iops', 'dns', 'dns-option', 'dns-search', 'domainname', 'entrypoint',
    'env', 'env-file', 'expose', 'gpus', 'group-add', 'health-cmd', 'health-interval', 'health-retries', 'health-start-interval', 'health-start-period',
    'health-timeout', 'hostname', 'ip', 'ip6', 'ipc', 'isolation', 'kernel-memory', 'label', 'label-file', 'link', 'link-local-ip', 'log-driver',
    'log-opt', 'mac-address', 'memory', 'memory-reservation', 'memory-swap', 'memory-swappiness', 'mount', 'name', 'network', 'net', 'network-alias',
    'net-alias', 'oom-score-adj', 'pid', 'pids-limit', 'platform', 'publish', 'pull', 'restart', 'runtime', 'security-opt', 'shm-size', 'stop-signal',
    'stop-timeout', 'storage-opt', 'sysctl', 'tmpfs', 'ulimit', 'user', 'userns', 'uts', 'volume', 'volume-driver', 'volumes-from', 'workdir',
    'detach-keys', 'arch', 'os', 'variant', 'pod', 'secret', 'systemd', 'tz', 'umask', 'uidmap', 'gidmap', 'subuidname', 'subgidname', 'hooks-dir',
  ]),
  longFlags: new Set(['detach', 'interactive', 'tty', 'rm', 'init', 'read-only', 'publish-all', 'quiet', 'no-healthcheck', 'oom-kill-disable', 'sig-proxy', 'disable-content-trust', 'replace', 'help']),
};

/** Options whose presence alone reaches the host. */
const HOST_FLAGS: ReadonlySet<string> = new Set(['privileged', 'rootfs', 'cap-add', 'device', 'device-cgroup-rule', 'security-opt', 'volumes-from', 'gpus', 'hooks-dir']);
/** Namespace options that reach the host when their value is `host` (or is not known statically). */
const NAMESPACE_OPTIONS: ReadonlySet<string> = new Set(['pid', 'network', 'net', 'ipc', 'uts', 'userns', 'cgroupns']);

/** A named volume (`cache:/root/.cache`) is the runtime's storage; any other source is a host path. */
const VOLUME_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** `-v SRC:DST[:opts]`: a host path as SRC (or an unknown one) is a bind mount; `-v /data` alone is an anonymous volume. */
function volumeReachesHost(value: string | null): boolean {
  if (value === null) return true;
  const colon = value.indexOf(':');
  if (colon === -1) return false;
  return !VOLUME_NAME.test(value.slice(0, colon));
}

/** `--mount type=…,…`: a bind, or a volume with driver options (which can bind any host path), reaches the host. */
function mountReachesHost(value: string | null): boolean {
  if (value === null) return true;
  const fields = value.split(',').map((field) => field.trim().toLowerCase());
  const type = fields.find((field) => field.startsWith('type='))?.slice('type='.length) ?? 'volume';
  if (type === 'bind' || type === 'glob' || type === 'devpts') return true;
  if (fields.some((field) => field.startsWith('volume-opt') || field.startsWith('volume-driver') || field.startsWith('options=') || field.startsWith('src=/') || field.startsWith('source=/'))) return true;
  return type !== 'volume' && type !== 'tmpfs' && type !== 'image';
}

/** What one `run`/`create` option does to the outcome: host reach, a file written on the host, or nothing. */
function optionReachesHost(name: string, value: ShellWord | null): boolean {
  if (HOST_FLAGS.has(name)) return true;
  const text = value === null ? null : value.value;
  // `host`, or a namespace file of the host (`ns:/proc/1/ns/net`); `none`, `bridge`, `container:x` stay apart.
  if (NAMESPACE_OPTIONS.has(name)) return text === null || text === 'host' || text.startsWith('ns:') || text.startsWith('/');
  if (name === 'volume' || name === 'v') return volumeReachesHost(text);
  if (name === 'mount') return mountReachesHost(text);
  // `--tmpfs`, `--env`, `--name`: none reaches the host.
  return false;
}

/**
 * `run`/`create` with docker-style options: host reach when any option reaches the host or is not
 * known; otherwise a networked sandbox. Parsing stops at the image: what follows is the container's
 * command, which runs inside it.
 */
function runContainer(args: readonly ShellWord[], spec: RunOptionSpec): ProgramOutcome {
  const writes: ShellWord[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const word = args[index]!;
    const text = word.value;
    if (text === null) return HOST_REACH;
    if (text === '--') break;
    if (!text.startsWith('-') || text === '-') break;
    if (text.startsWith('--')) {
      const equals = text.indexOf('=');
      const name = equals === -1 ? text.slice(2) : text.slice(2, equals);
      let value: ShellWord | null = null;
      if (equals !== -1) value = { value: text.slice(equals + 1), raw: word.raw };
      else if (spec.longValues.has(name)) {
        index += 1;
        value = args[index] ?? null;
      } else if (!spec.longFlags.has(name) && !HOST_FLAGS.has(name)) {
        return HOST_REACH;
      }
      if (optionReachesHost(name, value)) return HOST_REACH;
      if (name === 'cidfile' && value) writes.push(value);
      continue;
    }
    for (let position = 1; position < text.length; position += 1) {
      const letter = text[position]!;
      if (spec.shortValues.includes(letter)) {
        let value: ShellWord | null;
        if (position + 1 < text.length) value = { value: text.slice(position + 1), raw: word.raw };
        else {
          index += 1;
          value = args[index] ?? null;
        }
        if (optionReachesHost(letter, value)) return HOST_REACH;
        break;
      }
      if (!spec.shortFlags.includes(letter)) return HOST_REACH;
    }
  }
  return { ...EGRESS, writes };
}

/** Global options of the docker-style CLIs that take a value; `-H`/`--host`/`--context` talk to another daemon. */
const DOCKER_GLOBAL_VALUES: ReadonlySet<string> = new Set(['-H', '--host', '-c', '--context', '--config', '-l', '--log-level', '--tlscacert', '--tlscert', '--tlskey', '--url', '--connection', '--identity', '--root', '--runroot', '--storage-driver', '--namespace', '-n', '--address', '-a', '--cgroup-manager', '--runtime', '--cni-path', '--data-root', '--snapshotter']);
const REMOTE_DAEMON_OPTIONS: ReadonlySet<string> = new Set(['-H', '--host', '-c', '--context', '--url', '--connection', '--remote', '-r']);

/** Splits `docker [global options] subcommand args` and notes whether another (remote) daemon is addressed. */
function splitGlobals(args: readonly ShellWord[]): { subcommand: ShellWord | undefined; rest: readonly ShellWord[]; remote: boolean } {
  let remote = false;
  for (let index = 0; index < args.length; index += 1) {
    const text = args[index]!.value;
    if (text === null || !text.startsWith('-')) return { subcommand: args[index], rest: args.slice(index + 1), remote };
    const name = text.includes('=') ? text.slice(0, text.indexOf('=')) : text;
    if (REMOTE_DAEMON_OPTIONS.has(name)) remote = true;
    if (DOCKER_GLOBAL_VALUES.has(name) && !text.includes('=')) index += 1;
  }
  return { subcommand: undefined, rest: [], remote };
}

/** Docker's management commands group the same verbs: `docker container run` is `docker run`. */
const MANAGEMENT_GROUPS: ReadonlySet<string> = new Set(['container', 'image', 'volume', 'network', 'system', 'builder', 'buildx', 'context', 'plugin', 'manifest', 'trust', 'pod', 'machine', 'kube', 'secret', 'namespace', 'compose']);

const READ_VERBS: ReadonlySet<string> = new Set([
  'ps', 'ls', 'list', 'images', 'inspect', 'logs', 'version', 'info', 'stats', 'top', 'port', 'history', 'diff', 'events', 'help', 'df', 'config',
  'exists', 'healthcheck', 'wait', 'show', 'du', 'tree', 'mount', 'volumes',
]);
const EGRESS_VERBS: ReadonlySet<string> = new Set(['pull', 'push', 'search', 'fetch', 'sign']);
/** Verbs that change containers or images without running code in them. */
const SANDBOX_VERBS: ReadonlySet<string> = new Set(['stop', 'kill', 'pause', 'unpause', 'rename', 'update', 'disconnect', 'connect', 'commit', 'load', 'import', 'use', 'tag']);
const DELETE_VERBS: ReadonlySet<string> = new Set(['rm', 'rmi', 'prune', 'remove', 'reset', 'untag']);

/** `docker cp SRC DST`: DST on the host is written; a copy into a container (`ctr:/path`) writes only there. */
function copyOutcome(rest: readonly ShellWord[]): ProgramOutcome {
  const operands = rest.filter((word) => word.value === null || !word.value.startsWith('-'));
  const target = operands[operands.length - 1];
  if (operands.length < 2 || target === undefined) return SANDBOX;
  const intoContainer = target.value !== null && /^[A-Za-z0-9][A-Za-z0-9_.-]*:/.test(target.value);
  return intoContainer ? SANDBOX : { ...SANDBOX, writes: [target] };
}

/** `build`: runs the Dockerfile's steps in build containers (network on); `-o`/`--output` and id files write on the host. */
function buildOutcome(rest: readonly ShellWord[]): ProgramOutcome {
  const writes: ShellWord[] = [];
  const classes: EffectClass[] = ['networkEgress'];
  for (let index = 0; index < rest.length; index += 1) {
    const text = rest[index]!.value;
    if (text === null) return HOST_REACH;
    const [name, inline] = text.includes('=') && text.startsWith('--') ? [text.slice(0, text.indexOf('=')), text.slice(text.indexOf('=') + 1)] : [text, undefined];
    const value = inline !== undefined ? { value: inline, raw: rest[index]!.raw } : rest[index + 1];
    if (name === '--network' && (value?.value ?? 'host') === 'host') return HOST_REACH;
    if (name === '--allow' || name === '--privileged' || name === '--security-opt' || name === '--device') return HOST_REACH;
    if (name === '--secret' || name === '--ssh') classes.push('secretAccess');
    if (name === '-o' || name === '--output' || name === '--iidfile' || name === '--metadata-file') {
      if (!value || value.value === null) return HOST_REACH;
      const destination = /(?:^|,)dest=([^,]+)/.exec(value.value)?.[1] ?? (value.value.includes('type=') ? null : value.value);
      if (destination) writes.push({ value: destination, raw: value.raw });
    }
  }
  return { classes: ['sandboxControl', 'processSpawn', ...classes], writes };
}

/** Writes of `save -o FILE`, `export -o FILE`. */
function outputFile(rest: readonly ShellWord[]): ProgramOutcome {
  const index = rest.findIndex((word) => word.value === '-o' || word.value === '--output');
  const inline = rest.find((word) => word.value?.startsWith('--output='));
  const file = inline ? { value: inline.value!.slice('--output='.length), raw: inline.raw } : index === -1 ? undefined : rest[index + 1];
  return file ? { ...SANDBOX, writes: [file] } : SANDBOX;
}

/** docker, podman, nerdctl and their compose front ends. */
function dockerStyle(spec: RunOptionSpec, compose = false): ProgramRule {
  const rule: ProgramRule = (args) => {
    const { subcommand, rest: afterSubcommand, remote } = splitGlobals(args);
    let verbWord = subcommand;
    let rest = afterSubcommand;
    // `docker container run`, `docker compose up`: the verb follows the group.
    if (verbWord?.value && MANAGEMENT_GROUPS.has(verbWord.value)) {
      if (verbWord.value === 'compose') return composeRule(rest, { stdinFed: false });
      const split = splitGlobals(rest);
      verbWord = split.subcommand ?? verbWord;
      rest = split.rest;
    }
    const outcome = classifyVerb(verbWord, rest, spec, compose);
    return remote ? { ...outcome, classes: [...(outcome.classes ?? []), 'networkEgress'] } : outcome;
  };
  return rule;
}

function classifyVerb(verbWord: ShellWord | undefined, rest: readonly ShellWord[], spec: RunOptionSpec, compose: boolean): ProgramOutcome {
  if (verbWord === undefined) return NO_EFFECT;
  const verb = verbWord.value;
  if (verb === null) return HOST_REACH;
  if (verb === '--help' || verb === '--version' || verb === '-v' || READ_VERBS.has(verb)) return NO_EFFECT;
  if (verb === 'login') return sandboxWith('networkEgress', 'secretAccess', 'fileWriteOutsideWorktree');
  if (verb === 'logout') return sandboxWith('fileWriteOutsideWorktree');
  if (EGRESS_VERBS.has(verb)) return EGRESS;
  if (verb === 'build' || verb === 'bake') return buildOutcome(rest);
  if (verb === 'cp') return copyOutcome(rest);
  if (verb === 'save' || verb === 'export') return outputFile(rest);
  if (DELETE_VERBS.has(verb)) return sandboxWith('fileDelete');
  if (compose) {
    // compose runs what the compose file (not read here) configures: mounts, privileges, host networking.
    if (verb === 'down') return rest.some((word) => word.value === '-v' || word.value === '--volumes') ? sandboxWith('fileDelete') : SANDBOX;
    if (verb === 'stop' || verb === 'kill' || verb === 'pause' || verb === 'unpause') return SANDBOX;
    return HOST_REACH;
  }
  if (verb === 'run' || verb === 'create') return runContainer(rest, spec);
  if (SANDBOX_VERBS.has(verb)) return SANDBOX;
  // `exec`, `start`, `restart`, `attach`, `play kube`, plugins, anything new: code runs in a container
  // configured somewhere this command line does not show.
  return HOST_REACH;
}

const composeRule: ProgramRule = (args) => {
  // Compose's own options before the verb: `-f FILE`, `-p NAME`, `--profile P`, `--env-file F`.
  const valueOptions = new Set(['-f', '--file', '-p', '--project-name', '--profile', '--env-file', '--project-directory', '--ansi', '--parallel', '--progress']);
  let index = 0;
  while (index < args.length && (args[index]!.value ?? 'x').startsWith('-')) index += valueOptions.has(args[index]!.value!) ? 2 : 1;
  return classifyVerb(args[index], args.slice(index + 1), DOCKER_RUN, true);
};

/** containerd's `ctr [global] OBJECT ACTION …`: pulls are egress, listings read, running anything reaches the host unless plainly sandboxed. */
const ctr: ProgramRule = (args) => {
  const { subcommand, rest } = splitGlobals(args);
  const object = subcommand?.value;
  if (object === undefined) return NO_EFFECT;
  if (object === null) return HOST_REACH;
  if (object === 'run') return runContainer(rest, CTR_RUN);
  const action = rest.find((word) => !(word.value ?? '').startsWith('-'))?.value;
  if (object === 'version' || object === 'info' || object === 'plugins' || object === 'help') return NO_EFFECT;
  if (action === 'ls' || action === 'list' || action === 'info' || action === 'check' || action === 'ps' || action === 'metrics') return NO_EFFECT;
  if (action === 'pull' || action === 'fetch' || action === 'push') return EGRESS;
  if (action === 'rm' || action === 'remove' || action === 'delete' || action === 'del' || action === 'prune') return sandboxWith('fileDelete');
  if (action === 'kill' || action === 'pause' || action === 'resume' || action === 'tag') return SANDBOX;
  if ((object === 'containers' || object === 'container' || object === 'c') && action === 'create') return runContainer(rest.slice(1), CTR_RUN);
  // Tasks started or exec'd run with whatever the container was created with: not visible here.
  return HOST_REACH;
};

const CTR_RUN: RunOptionSpec = {
  shortValues: '',
  shortFlags: 'dt',
  longValues: new Set(['env', 'env-file', 'label', 'mount', 'runtime', 'runtime-config-path', 'snapshotter', 'snapshotter-label', 'cwd', 'user', 'uidmap', 'gidmap', 'memory-limit', 'cpus', 'cpu-shares', 'platform', 'fifo-dir', 'log-uri', 'sandbox', 'annotation', 'hostname', 'seccomp-profile', 'apparmor-profile', 'cgroup', 'cni-path']),
  longFlags: new Set(['rm', 'detach', 'tty', 'null-io', 'read-only', 'cni', 'seccomp', 'no-pivot', 'help']),
};

/**
 * `crictl`: pods and containers are created from config files the classifier does not read (a host
 * path mount is one line of JSON), so creating, starting or exec'ing reaches the host.
 */
const crictl: ProgramRule = (args) => {
  const verb = args.find((word) => !(word.value ?? '').startsWith('-'));
  if (verb === undefined) return NO_EFFECT;
  const name = verb.value;
  if (name === null) return HOST_REACH;
  if (['ps', 'pods', 'images', 'img', 'inspect', 'inspectp', 'inspecti', 'logs', 'info', 'version', 'stats', 'statsp', 'imagefsinfo', 'config', 'help', 'port-forward-list', 'metricdescs', 'metricsp'].includes(name)) return NO_EFFECT;
  if (name === 'pull') return EGRESS;
  if (name === 'rm' || name === 'rmi' || name === 'rmp') return sandboxWith('fileDelete');
  if (name === 'stop' || name === 'stopp' || name === 'update') return SANDBOX;
  return HOST_REACH;
};

/** LXD's `lxc`: listings read; launching, exec'ing, devices and config reach the host (privileged containers, disk devices). */
const lxc: ProgramRule = (args) => {
  const verb = args.find((word) => !(word.value ?? '').startsWith('-'));
  if (verb === undefined) return NO_EFFECT;
  const name = verb.value;
  if (name === null) return HOST_REACH;
  const rest = args.slice(args.indexOf(verb) + 1);
  const action = rest.find((word) => !(word.value ?? '').startsWith('-'))?.value;
  if (['list', 'ls', 'info', 'version', 'help', 'query'].includes(name)) return NO_EFFECT;
  if ((name === 'image' || name === 'remote' || name === 'network' || name === 'storage' || name === 'profile' || name === 'config') && (action === 'list' || action === 'ls' || action === 'show' || action === 'get' || action === 'info')) return NO_EFFECT;
  if (name === 'image' && (action === 'copy' || action === 'import')) return EGRESS;
  if (name === 'file' && action === 'pull') return { ...SANDBOX, writes: rest.slice(-1) };
  if (name === 'delete' || name === 'rm') return sandboxWith('fileDelete');
  if (name === 'stop' || name === 'pause') return SANDBOX;
  return HOST_REACH;
};

/**
 * `kubectl` talks to a cluster (networkEgress). Reads stay reads (secrets are secretAccess); anything
 * that creates or changes workloads, or runs code in them, may reach the nodes — a local cluster's
 * node is this host (`kubectl debug node/…`, a hostPath pod) — so it is host reach.
 */
const kubectl: ProgramRule = (args) => {
  const parsed = splitKubectl(args);
  const verb = parsed.verb;
  if (verb === undefined) return NO_EFFECT;
  if (verb === null) return HOST_REACH;
  if (verb === 'help' || verb === 'completion') return NO_EFFECT;
  if (verb === 'version' || verb === 'explain' || verb === 'api-resources' || verb === 'api-versions') return { classes: ['networkEgress'] };
  if (verb === 'config') {
    const action = parsed.rest[0]?.value;
    if (action === 'view' || action === 'get-contexts' || action === 'current-context' || action === 'get-clusters' || action === 'get-users') return { classes: ['secretAccess'] };
    return { writes: [{ value: '~/.kube/config', raw: '~/.kube/config' }] };
  }
  if (['get', 'describe', 'logs', 'top', 'cluster-info', 'auth', 'diff', 'events', 'wait'].includes(verb)) {
    const secrets = parsed.rest.some((word) => word.value === null || /^secrets?(\/|$)/.test(word.value));
    return { classes: secrets ? ['networkEgress', 'secretAccess'] : ['networkEgress'] };
  }
  if (verb === 'cp') {
    const target = parsed.rest.filter((word) => !(word.value ?? '').startsWith('-')).at(-1);
    const local = target !== undefined && target.value !== null && !target.value.includes(':');
    return local ? { classes: ['networkEgress', 'sandboxControl'], writes: [target] } : { classes: ['networkEgress', 'sandboxControl'] };
  }
  if (verb === 'port-forward' || verb === 'proxy') return { classes: ['networkEgress', 'processSpawn'] };
  if (verb === 'delete') return { classes: ['networkEgress', 'sandboxControl', 'fileDelete'] };
  return HOST_REACH;
};

const KUBECTL_GLOBAL_VALUES: ReadonlySet<string> = new Set(['-n', '--namespace', '--context', '--cluster', '--user', '--kubeconfig', '-s', '--server', '--token', '--as', '--as-group', '--request-timeout', '--certificate-authority', '--client-certificate', '--client-key', '-v', '--v']);

function splitKubectl(args: readonly ShellWord[]): { verb: string | null | undefined; rest: readonly ShellWord[] } {
  for (let index = 0; index < args.length; index += 1) {
    const text = args[index]!.value;
    if (text === null) return { verb: null, rest: [] };
    if (!text.startsWith('-')) return { verb: text, rest: args.slice(index + 1) };
    if (KUBECTL_GLOBAL_VALUES.has(text)) index += 1;
  }
  return { verb: undefined, rest: [] };
}

/** Rules for container runtimes and orchestrators, by program name. */
export const CONTAINER_RUNTIME_RULES: Readonly<Record<string, ProgramRule>> = {
  docker: dockerStyle(DOCKER_RUN),
  podman: dockerStyle(DOCKER_RUN),
  nerdctl: dockerStyle(DOCKER_RUN),
  finch: dockerStyle(DOCKER_RUN),
  'docker-compose': composeRule,
  'podman-compose': composeRule,
  ctr,
  crictl,
  lxc,
  kubectl,
  oc: kubectl,
};
