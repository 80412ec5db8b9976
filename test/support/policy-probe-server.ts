import { createSeededWorkspace, startTestServer, type ApiResponse } from './test-server.js';

/** A real server with one seeded workspace, and its workspace API: enough to set rules and ask `/policy/probe`. */
export interface ProbeServer {
  /** Calls `/api/workspaces/<id><path>` on the seeded workspace. */
  api<T = any>(method: string, path: string, body?: unknown): Promise<ApiResponse<T>>;
  dispose(): Promise<void>;
}

export async function startProbeServer(): Promise<ProbeServer> {
  const server = await startTestServer();
  const workspaceId = (await createSeededWorkspace(server)).id;
  return {
    api: (method, path, body) => server.api(method, `/api/workspaces/${workspaceId}${path}`, body),
    dispose: () => server.dispose(),
  };
}
