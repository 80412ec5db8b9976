import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Host side of the sandbox's loopback relays: one unix socket per allowed 127.0.0.1 port. */
export interface LoopbackRelays {
  /** Directory holding `<port>.sock` for every relayed port. */
  directory: string;
  socketPath(port: number): string;
  close(): Promise<void>;
}

function pipeBothWays(inbound: Socket, outbound: Socket): void {
  inbound.pipe(outbound);
  outbound.pipe(inbound);
  const destroy = () => {
    inbound.destroy();
    outbound.destroy();
  };
  inbound.on('error', destroy);
  outbound.on('error', destroy);
  inbound.on('close', destroy);
  outbound.on('close', destroy);
}

/**
 * Listens on `<dir>/<port>.sock` for each port and forwards every connection to 127.0.0.1:<port>.
 * Inside the sandbox (a network namespace with only `lo`), socat listens on 127.0.0.1:<port> and
 * connects to the bind-mounted socket, so the sandboxed process reaches exactly these ports and
 * nothing else. The directory lives in the OS temp dir because unix socket paths are limited to
 * about 107 bytes.
 */
export async function startLoopbackRelays(ports: readonly number[]): Promise<LoopbackRelays> {
  const directory = await mkdtemp(join(tmpdir(), 'ccnet-'));
  const servers: Server[] = [];
  const sockets = new Set<Socket>();
  const socketPath = (port: number) => join(directory, `${port}.sock`);
  try {
    for (const port of new Set(ports)) {
      const server = createServer((inbound) => {
        sockets.add(inbound);
        inbound.on('close', () => sockets.delete(inbound));
        const outbound = connect({ host: '127.0.0.1', port });
        pipeBothWays(inbound, outbound);
      });
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(socketPath(port), () => {
          server.off('error', reject);
          resolve();
        });
      });
      servers.push(server);
    }
  } catch (error) {
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
  return {
    directory,
    socketPath,
    async close() {
      for (const socket of sockets) socket.destroy();
      await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
      await rm(directory, { recursive: true, force: true });
    },
  };
}
