import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyShellCommand, compilePolicy, decideAction, EFFECT_CLASSES, loadShellParser, shellAction, type PolicyContext } from '../../src/core/index.js';
import { startProbeServer, type ProbeServer } from '../support/policy-probe-server.js';

/**
 * POL-2, SEC-5: a container runtime's daemon is root on the host. A container given a host path, the
 * host's namespaces, devices, capabilities or privileges — or one whose configuration the command line
 * does not show (`exec`, `start`, `compose up`, `kubectl apply`) — runs unseen code that can change
 * anything on the host. Such commands carry every effect class: never allowed by default in chat mode,
 * refused by a deny on any class. Before, every `docker run` was sandboxControl + processSpawn, both
 * allowed by default, so `docker run -v /:/host alpine rm -rf /host/…` ran without asking.
 */

const HOST_REACHING = [
  'docker run -v /:/host alpine sh',
  'docker run --volume=/home:/h alpine',
  'docker run -v "$PWD":/src node:20 npm test',
  'docker run -itv /etc:/e alpine',
  'docker run --mount type=bind,source=/,target=/host alpine',
  'docker run --mount type=volume,volume-opt=type=none,volume-opt=o=bind,volume-opt=device=/,target=/host alpine',
  'docker run --privileged alpine',
  'docker run --pid=host alpine',
  'docker run --net=host alpine',
  'docker run --network host alpine',
  'docker run --ipc=host alpine',
  'docker run --uts=host alpine',
  'docker run --userns=host alpine',
  'docker run --cgroupns=host alpine',
  'docker run --cap-add=SYS_ADMIN alpine',
  'docker run --device /dev/sda alpine',
  'docker run --security-opt seccomp=unconfined alpine',
  'docker run --volumes-from other alpine',
  'docker run --some-future-option alpine',
  'docker create -v /:/host alpine',
  'docker container run -v /:/host alpine',
  'docker -H unix:///var/run/docker.sock run -v /:/host alpine',
  'docker exec ctr rm -rf /data',
  'docker start ctr',
  'docker compose up -d',
  'docker-compose run web sh',
  'docker build --network=host .',
  'podman run -v /:/host alpine',
  'podman run --rootfs / sh',
  'podman run --pid=ns:/proc/1/ns/pid alpine',
  'nerdctl run --privileged alpine',
  'ctr run --mount type=bind,src=/,dst=/host,options=rbind:rw docker.io/library/alpine:latest t sh',
  'ctr run --privileged docker.io/library/alpine:latest t sh',
  'ctr tasks exec --exec-id 1 t sh',
  'crictl runp pod.json',
  'crictl exec -it ctr sh',
  'lxc exec c -- bash',
  'lxc config device add c root disk source=/ path=/host',
  'kubectl run x --image=alpine --overrides={}',
  'kubectl exec pod -- sh',
  'kubectl debug node/kind-control-plane -it --image=busybox',
  'kubectl apply -f pod.yaml',
  'sudo docker run -v /:/host alpine',
  'timeout 60 docker run --privileged alpine',
];

const CONTEXT: PolicyContext = { mode: 'chat', autonomy: 'actWithApproval', workspaceId: 'ws_1' };

beforeAll(async () => {
  await loadShellParser();
});

describe('container runtimes are classified by what the container can reach (POL-2, SEC-5)', () => {
  it.each(HOST_REACHING.map((command) => [command]))('SEC-5: %s reaches the host: every class, never allowed by default', (command) => {
    const result = classifyShellCommand(command);
    expect(result.classes, command).toEqual([...EFFECT_CLASSES]);
    expect(decideAction(compilePolicy([]), shellAction(result), CONTEXT).decision).toBe('ask');
    for (const effectClass of ['gitPush', 'fileWriteOutsideWorktree', 'secretAccess'] as const) {
      const policy = compilePolicy([{ id: 'deny', scope: 'workspace', scopeId: 'ws_1', match: { kind: 'class', effectClass }, decision: 'deny' }]);
      expect(decideAction(policy, shellAction(result), CONTEXT).decision, `${command} under a ${effectClass} deny`).toBe('deny');
    }
  });

  it.each([
    ['docker run --rm alpine echo hi', ['networkEgress', 'processSpawn', 'sandboxControl']],
    ['docker run --rm -it -e A=1 -p 8080:80 --name web -w /app -v cache:/root/.cache node:20 npm test', ['networkEgress', 'processSpawn', 'sandboxControl']],
    ['docker run --network=none --mount type=tmpfs,target=/tmp alpine ls -v /:/x', ['networkEgress', 'processSpawn', 'sandboxControl']],
    ['docker pull alpine', ['networkEgress', 'processSpawn', 'sandboxControl']],
    ['ctr images pull docker.io/library/alpine:latest', ['networkEgress', 'processSpawn', 'sandboxControl']],
    ['crictl pull nginx', ['networkEgress', 'processSpawn', 'sandboxControl']],
    ['docker rm -f web', ['fileDelete', 'processSpawn', 'sandboxControl']],
    ['docker system prune -af --volumes', ['fileDelete', 'processSpawn', 'sandboxControl']],
    ['docker login', ['fileWriteOutsideWorktree', 'networkEgress', 'secretAccess', 'processSpawn', 'sandboxControl']],
    ['docker buildx build -o type=local,dest=/tmp/out .', ['fileWriteOutsideWorktree', 'networkEgress', 'processSpawn', 'sandboxControl']],
    ['kubectl get pods -A', ['networkEgress']],
    ['kubectl get secret db -o yaml', ['networkEgress', 'secretAccess']],
    ['docker ps -a', []],
    ['docker compose logs web', []],
    ['lxc list', []],
  ] as const)('POL-2: %s is a sandbox, an image transfer or a read: %j', (command, classes) => {
    const result = classifyShellCommand(command);
    expect({ classes: result.classes, unknown: result.unknown }).toEqual({ classes, unknown: false });
  });
});

describe('POL-2 over real HTTP: /policy/probe in chat mode', () => {
  let server: ProbeServer;
  const api = (method: string, path: string, body?: unknown) => server.api(method, path, body);
  beforeAll(async () => {
    server = await startProbeServer();
  });
  afterAll(async () => {
    await server.dispose();
  });

  it('SEC-5: docker run -v /:/host asks, and a fileWriteOutsideWorktree deny refuses it; a sandboxed run is allowed', async () => {
    const command = 'docker run --rm -v /:/host alpine rm -rf /host/etc/cron.d';
    expect((await api('POST', '/policy/probe', { command, mode: 'chat' })).body).toMatchObject({ decision: 'ask', mode: 'chat' });
    expect((await api('POST', '/policy/probe', { command: 'docker run --rm alpine echo hi', mode: 'chat' })).body).toMatchObject({ decision: 'allow' });
    const rule = await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'class', effectClass: 'fileWriteOutsideWorktree' }, decision: 'deny' });
    expect(rule.status).toBe(201);
    try {
      for (const denied of [command, 'docker run --privileged alpine', 'docker exec web sh -c "cat /etc/shadow"']) {
        expect((await api('POST', '/policy/probe', { command: denied, mode: 'chat' })).body, denied).toMatchObject({ decision: 'deny', decidedBy: { ruleId: rule.body.id } });
      }
    } finally {
      await api('DELETE', `/policy/rules/${rule.body.id}`);
    }
  });
});
