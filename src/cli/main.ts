import { Command, InvalidArgumentError } from 'commander';
import type { Agent } from '../schemas/agent.js';
import type { Workspace } from '../schemas/workspace.js';
import { startServer } from '../server/start-server.js';
import { startWorker } from '../server/start-worker.js';
import { checkRole } from '../services/process-role.js';
import { parseStoreLocation, redactUrl } from '../store/store-location.js';
import { ApiClient } from './api-client.js';
import { defaultDataDir, defaultPort } from './defaults.js';
import { registerSkillCommands } from './skill-commands.js';
import { registerMcpCommands } from './mcp-commands.js';
import { registerBudgetCommands } from './budget-commands.js';
import { registerOperatorCommands } from './operator-commands.js';
import { registerOrchestrationCommands } from './orchestration-commands.js';
import { registerPeopleCommands } from './people-commands.js';
import { registerAuditCommands } from './audit-commands.js';
import { registerOidcCommands } from './oidc-commands.js';
import { registerNotificationCommands } from './notification-commands.js';
import { registerChatCommand } from './chat-command.js';
import { registerRewindCommands } from './rewind-commands.js';
import { registerPublishCommands } from './publish-commands.js';
import { registerBackupCommands } from './backup-commands.js';
import { registerChangeCommands } from './change-commands.js';
import { addRunQueueOptions, runQueueOptions, type RunQueueFlags } from './run-queue-options.js';
import { closeInheritedDescriptors } from '../sandbox/inherited-descriptors.js';
import { DEFAULT_SHARED_LEASE_MS } from '../services/cluster/failover-timing.js';

// SEC-11: nothing the server spawns may inherit what whoever started it left open.
closeInheritedDescriptors();

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new InvalidArgumentError('must be a port number 0–65535 (0 picks a free one)');
  return port;
}

function parseSeconds(value: string): number {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds < 0 || seconds > 86_400) throw new InvalidArgumentError('must be a number of seconds, 0–86400');
  return seconds;
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

const program = new Command()
  .name('control-center')
  .description('Control Center: a self-hosted control plane for teams of AI coding agents')
  .option('--data-dir <dir>', 'data root (registry, workspaces, operator token)', defaultDataDir())
  .option('--url <url>', 'server URL for client commands (default: from <data-dir>/server.json)')
  .option('--token <token>', 'operator token for client commands (default: <data-dir>/operator-token)');

const serve = program
  .command('serve')
  .description('start the server with its embedded database on localhost')
  .option('--port <port>', 'port to listen on (0 = pick a free one)', parsePort, defaultPort())
  .option('--host <host>', 'interface to listen on', '127.0.0.1')
  .option('--data-dir <dir>', 'data root (overrides the global option)')
  .option('--no-default-workspace', 'do not create a "Default" workspace when none exists')
  .option('--log-level <level>', 'pino log level', 'warn')
  .option('--database <url>', 'postgres:// URL of a PostgreSQL database for the registry and the workspaces (default: the embedded SQLite files)', process.env.CONTROL_CENTER_DATABASE_URL)
  .option('--shell-network <mode>', 'network of the built-in bash sandbox: host (egress decided by policy) or loopback', process.env.CONTROL_CENTER_SHELL_NETWORK ?? 'host')
  .option(
    '--allow-unsandboxed-runners',
    'let Claude Code run without an OS sandbox when the host has none (it then runs as this user and could read the operator token)',
    ['1', 'true', 'yes'].includes((process.env.CONTROL_CENTER_ALLOW_UNSANDBOXED_RUNNERS ?? '').toLowerCase()),
  )
  .option('--role <role>', 'all (HTTP and work), or api (HTTP and SSE only; work runs in `control-center worker` processes; needs --database)', 'all');
addRunQueueOptions(serve).action(
  async (options: { port: number; host: string; dataDir?: string; defaultWorkspace: boolean; logLevel: string; database?: string; shellNetwork: string; allowUnsandboxedRunners: boolean; role: string } & RunQueueFlags) => {
    // Refused here, before anything opens, when it is not a postgres:// URL.
    const store = parseStoreLocation(options.database, options.dbPoolSize);
    if (options.role === 'worker') throw new InvalidArgumentError('a worker is started with `control-center worker`, not `serve --role worker`');
    const role = checkRole(options.role, store);
    if (options.shellNetwork !== 'host' && options.shellNetwork !== 'loopback') {
      throw new InvalidArgumentError(`--shell-network must be host or loopback, not '${options.shellNetwork}'`);
    }
    const dataRoot = options.dataDir ?? (program.opts() as { dataDir: string }).dataDir;
    const startedAt = performance.now();
    const running = await startServer({
      dataRoot,
      ...(store.dialect === 'postgres' ? { database: store.url } : {}),
      host: options.host,
      port: options.port,
      logLevel: options.logLevel,
      ensureDefaultWorkspace: options.defaultWorkspace,
      builtinShellNetwork: options.shellNetwork,
      allowUnsandboxedRunners: options.allowUnsandboxedRunners,
      role,
      ...runQueueOptions(options),
    });
    const tokenFile = running.app.auth.tokenFile;
    console.log(`Control Center listening on ${running.url} (started in ${Math.round(performance.now() - startedAt)} ms)`);
    console.log(`Data directory: ${dataRoot}`);
    if (store.dialect === 'postgres') console.log(`Database: ${redactUrl(store.url)} (PostgreSQL, a schema per workspace)`);
    if (role === 'api') console.log('Role: api (runs nothing; start `control-center worker` processes on the same database)');
    console.log(`${running.tokenCreated ? 'Created an operator token' : 'Operator token'} in ${tokenFile} (mode 0600). Use it as:`);
    console.log(`  curl -H "Authorization: Bearer $(cat ${tokenFile})" ${running.url}/api/workspaces`);
    // As Jupyter does, a one-time link signs a browser in without copying the token.
    const operatorId = running.app.auth.firstOperatorId();
    if (operatorId) {
      const { code } = await running.app.sessions.mintSignInCode(operatorId);
      console.log(`Web app: open this one-time sign-in link within 5 minutes (it works once):`);
      console.log(`  ${running.url}/auth/sign-in?code=${code}`);
      console.log(`  (a new link: control-center sign-in-link; or open ${running.url} and paste the token)`);
    } else {
      console.log(`Web app: open ${running.url} and sign in with that token.`);
    }
    if (options.allowUnsandboxedRunners) console.log('Unsandboxed runners allowed: on a host without an OS sandbox, Claude Code runs as this user (SEC-6).');
    // SIGTERM (docs/deploy.md): new requests are answered 503, each open event stream is sent
    // `server.restarting` and ended (browsers reconnect at once to another process and resume), the
    // stores close, and the process exits 0.
    const shutdown = () => {
      void running.close().then(
        () => process.exit(0),
        (error: unknown) => {
          console.error('Control Center did not stop cleanly:', error);
          process.exit(1);
        },
      );
    };
    process.once('SIGINT', shutdown);
    process.once('SIGTERM', shutdown);
  },
);

async function client(): Promise<ApiClient> {
  const options = program.opts() as { dataDir: string; url?: string; token?: string };
  return ApiClient.connect({ dataDir: options.dataDir, ...(options.url ? { url: options.url } : {}), ...(options.token ? { token: options.token } : {}) });
}

/** A workspace by id or name; with none given, the only workspace there is. */
async function resolveWorkspace(api: ApiClient, idOrName?: string): Promise<Workspace> {
  const { workspaces } = await api.request<{ workspaces: Workspace[] }>('GET', '/api/workspaces');
  if (!idOrName) {
    if (workspaces.length === 1) return workspaces[0]!;
    throw new Error(`pass --workspace <id|name>: there are ${workspaces.length} workspaces`);
  }
  const found = workspaces.find((workspace) => workspace.id === idOrName || workspace.name.toLowerCase() === idOrName.toLowerCase());
  if (!found) throw new Error(`no workspace '${idOrName}'`);
  return found;
}

async function resolveAgent(api: ApiClient, workspace: Workspace, idOrName: string): Promise<Agent> {
  const { agents } = await api.request<{ agents: Agent[] }>('GET', `/api/workspaces/${workspace.id}/agents`);
  const found = agents.find((agent) => agent.id === idOrName || agent.name === idOrName);
  if (!found) throw new Error(`no agent '${idOrName}' in workspace '${workspace.name}'`);
  return found;
}

const worker = program
  .command('worker')
  .description('claim and execute pipeline and plan nodes, agent runs and approval timeouts from the shared PostgreSQL queue; no API')
  .option('--data-dir <dir>', 'this worker\'s own data root (checkouts, scratch; not shared with other workers)')
  .option('--database <url>', 'postgres:// URL of the database the API processes use', process.env.CONTROL_CENTER_DATABASE_URL)
  .option('--port <port>', 'serve /healthz, /readyz and /metrics on this port (default: no port)', parsePort)
  .option('--host <host>', 'interface of the operations port', '127.0.0.1')
  .option('--log-level <level>', 'pino log level', 'warn')
  .option('--lease-seconds <s>', 'heartbeat lease: a worker silent this long is dead — its runs are marked dead and its jobs claimed by others (it beats every eighth of it, at most every second)', parseSeconds, DEFAULT_SHARED_LEASE_MS / 1_000)
  .option('--grace-seconds <s>', 'on SIGTERM, how long turns and nodes in flight may take to finish; then nodes go back to the queue and turns end with the cause', parseSeconds, 30)
  .option('--shell-network <mode>', 'network of the built-in bash sandbox: host or loopback', process.env.CONTROL_CENTER_SHELL_NETWORK ?? 'host');
addRunQueueOptions(worker).action(
  async (options: { dataDir?: string; database?: string; port?: number; host: string; logLevel: string; leaseSeconds: number; graceSeconds: number; shellNetwork: string } & RunQueueFlags) => {
    const store = parseStoreLocation(options.database, options.dbPoolSize);
    checkRole('worker', store);
    if (store.dialect !== 'postgres') return;
    if (options.shellNetwork !== 'host' && options.shellNetwork !== 'loopback') {
      throw new InvalidArgumentError(`--shell-network must be host or loopback, not '${options.shellNetwork}'`);
    }
    const dataRoot = options.dataDir ?? (program.opts() as { dataDir: string }).dataDir;
    const running = await startWorker({
      dataRoot,
      database: store.url,
      logLevel: options.logLevel,
      jobLeaseMs: Math.max(1_000, Math.round(options.leaseSeconds * 1_000)),
      builtinShellNetwork: options.shellNetwork,
      ...runQueueOptions(options),
      ...(options.port !== undefined ? { port: options.port, host: options.host } : {}),
    });
    console.log(`Control Center worker ${process.pid} claiming work from ${redactUrl(store.url)}; runners call back on ${running.runnerUrl}${running.url ? `; operations on ${running.url}` : ''}`);
    console.log(`Data directory: ${dataRoot}`);
    // SIGTERM drains (docs/deploy.md): claim nothing more, let work in flight finish within the
    // grace, hand back the rest, then exit 0 so systemd records a clean stop.
    const shutdown = (signal: NodeJS.Signals) => {
      console.log(`Control Center worker ${process.pid}: ${signal}, draining for up to ${options.graceSeconds} s`);
      void running.close(options.graceSeconds * 1_000, `The worker stopped (${signal}) before this turn finished`).then(() => process.exit(0));
    };
    process.once('SIGINT', shutdown);
    process.once('SIGTERM', shutdown);
  },
);

program
  .command('sign-in-link')
  .description('print a new one-time link that signs a browser in to the running server')
  .action(async () => {
    const api = await client();
    const { url } = (await api.request('POST', '/api/auth/sign-in-link')) as { url: string };
    console.log(url);
  });

const workspace = program.command('workspace').description('manage workspaces');
workspace
  .command('list')
  .action(async () => print((await (await client()).request<{ workspaces: Workspace[] }>('GET', '/api/workspaces')).workspaces));
workspace
  .command('create <name>')
  .action(async (name: string) => print(await (await client()).request('POST', '/api/workspaces', { name })));
workspace
  .command('delete <idOrName>')
  .requiredOption('--confirm <name>', "the workspace's name, to confirm")
  .action(async (idOrName: string, options: { confirm: string }) => {
    const api = await client();
    const target = await resolveWorkspace(api, idOrName);
    await api.request('DELETE', `/api/workspaces/${target.id}`, { confirmName: options.confirm });
    console.log(`deleted workspace ${target.name} (${target.id})`);
  });

/** Parses `key=value` pairs for `agent create|set`; numbers, null and JSON arrays are recognised. */
function parseFields(pairs: string[]): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const pair of pairs) {
    const separator = pair.indexOf('=');
    if (separator < 1) throw new InvalidArgumentError(`expected key=value, got '${pair}'`);
    const key = pair.slice(0, separator);
    const raw = pair.slice(separator + 1);
    if (raw === 'null') fields[key] = null;
    else if (key === 'skills') fields[key] = raw.startsWith('[') ? JSON.parse(raw) : raw.split(',').map((skill) => skill.trim()).filter(Boolean);
    else if (['contextSize', 'silenceTimeoutMinutes'].includes(key) && /^\d+$/.test(raw)) fields[key] = Number(raw);
    else fields[key] = raw;
  }
  return fields;
}

const agent = program.command('agent').description('manage agents').option('-w, --workspace <idOrName>', 'workspace (default: the only one)');
const workspaceOption = () => (agent.opts() as { workspace?: string }).workspace;
agent.command('list').action(async () => {
  const api = await client();
  const target = await resolveWorkspace(api, workspaceOption());
  const { agents } = await api.request<{ agents: Agent[] }>('GET', `/api/workspaces/${target.id}/agents`);
  for (const item of agents) console.log(`${item.id}  ${item.name.padEnd(16)} ${item.state.padEnd(9)} ${item.title}`);
});
agent
  .command('create [fields...]')
  .description('create an agent; fields as key=value (name=…, title=…, skills=a,b, reportsTo=<id>)')
  .action(async (pairs: string[]) => {
    const api = await client();
    const target = await resolveWorkspace(api, workspaceOption());
    print(await api.request('POST', `/api/workspaces/${target.id}/agents`, parseFields(pairs)));
  });
agent.command('show <idOrName>').action(async (idOrName: string) => {
  const api = await client();
  print(await resolveAgent(api, await resolveWorkspace(api, workspaceOption()), idOrName));
});
agent
  .command('set <idOrName> <fields...>')
  .description('update fields, as key=value (null clears a field)')
  .action(async (idOrName: string, pairs: string[]) => {
    const api = await client();
    const target = await resolveWorkspace(api, workspaceOption());
    const found = await resolveAgent(api, target, idOrName);
    print(await api.request('PATCH', `/api/workspaces/${target.id}/agents/${found.id}`, parseFields(pairs)));
  });

const review = program.command('review').description('pull-request reviews').option('-w, --workspace <idOrName>', 'workspace (default: the only one)');
const reviewWorkspace = () => (review.opts() as { workspace?: string }).workspace;
review
  .command('open [repoPath] [base] [head]')
  .description('open (or re-review) base...head of a repository, or a pull request with --pr <url>, as a review space; --reviewers dispatches agents')
  .option('--pr <url>', 'a pull-request URL (GitHub) to review instead of a local repository')
  .option('--title <title>', 'the review title')
  .option('--reviewers <names>', 'comma-separated agent names to dispatch (e.g. qa,architect,engineer)')
  .action(async (repoPath: string | undefined, base: string | undefined, head: string | undefined, options: { pr?: string; title?: string; reviewers?: string }) => {
    if (!options.pr && (!repoPath || !base || !head)) throw new Error('give <repoPath> <base> <head>, or --pr <url>');
    const api = await client();
    const target = await resolveWorkspace(api, reviewWorkspace());
    const reviewers = options.reviewers?.split(',').map((name) => name.trim()).filter(Boolean);
    const source = options.pr ? { prUrl: options.pr } : { repoPath, base, head };
    print(await api.request('POST', `/api/workspaces/${target.id}/reviews`, { ...source, ...(options.title ? { title: options.title } : {}), ...(reviewers?.length ? { reviewers } : {}) }));
  });
review
  .command('publish <reviewId>')
  .description("publish the finalized verdict to the review's pull request (asks for approval under the prPublish policy)")
  .action(async (reviewId: string) => {
    const api = await client();
    const target = await resolveWorkspace(api, reviewWorkspace());
    print(await api.request('POST', `/api/workspaces/${target.id}/reviews/${encodeURIComponent(reviewId)}/publish`));
  });
review.command('show <reviewId>').description('the review, its findings and its verdict').action(async (reviewId: string) => {
  const api = await client();
  const target = await resolveWorkspace(api, reviewWorkspace());
  const base = `/api/workspaces/${target.id}/reviews/${encodeURIComponent(reviewId)}`;
  print({ review: await api.request('GET', base), findings: await api.request('GET', `${base}/findings`), verdict: await api.request('GET', `${base}/verdict`) });
});
registerSkillCommands(program, client, resolveWorkspace);
registerMcpCommands(program, client, resolveWorkspace);
registerBudgetCommands(program, { client, resolveWorkspace });
registerOperatorCommands(program, { client, resolveWorkspace });
registerOrchestrationCommands(program, { client, resolveWorkspace });
registerPeopleCommands(program, { client, resolveWorkspace });
registerAuditCommands(program, { client, resolveWorkspace });
registerOidcCommands(program.commands.find((command) => command.name() === 'people')!, { client, resolveWorkspace });
registerNotificationCommands(program, { client, resolveWorkspace });
registerChatCommand(program, { client, resolveWorkspace });
registerRewindCommands(program, { client, resolveWorkspace });
registerPublishCommands(program, { client, resolveWorkspace });
registerBackupCommands(program);
registerChangeCommands(program, { client, resolveWorkspace });

program.parseAsync(process.argv).catch((error: unknown) => {
  console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
