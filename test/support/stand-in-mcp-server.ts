import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/** One tool call the stand-in received. */
export interface RecordedMcpCall {
  tool: string;
  input: Record<string, unknown>;
  authorization: string | undefined;
  at: number;
}

/**
 * A real MCP server (streamable HTTP, stateless, the official SDK) with a few of the product's tool
 * names, for testing the Claude Code transport's MCP wiring (tool naming, plan-mode permission,
 * bearer headers, round-trip latency) without the lead's `/mcp` server. Tests about the product tools'
 * behaviour (a stored plan) run against the real `/mcp` instead.
 */
export interface StandInMcpServer {
  url: string;
  calls: RecordedMcpCall[];
  /** Requests refused for a wrong bearer token. */
  refused: number;
  close(): Promise<void>;
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? (JSON.parse(text) as unknown) : undefined;
}

export async function startStandInMcpServer(options: { token: string }): Promise<StandInMcpServer> {
  const calls: RecordedMcpCall[] = [];
  let refused = 0;
  const build = (authorization: string | undefined) => {
    const mcp = new McpServer({ name: 'control-center-stand-in', version: '0.0.0' });
    const record = (tool: string, input: Record<string, unknown>) => calls.push({ tool, input, authorization, at: Date.now() });
    mcp.registerTool(
      'submit_plan',
      {
        description: 'Submit the plan (stand-in).',
        inputSchema: { goal: z.string(), nodes: z.array(z.object({ key: z.string(), title: z.string(), description: z.string().optional(), dependsOn: z.array(z.string()).optional() })) },
      },
      async (input) => {
        record('submit_plan', input as Record<string, unknown>);
        return { content: [{ type: 'text', text: `plan stored: ${input.goal}` }] };
      },
    );
    mcp.registerTool('echo', { description: 'Echo the text back (stand-in).', inputSchema: { text: z.string() } }, async (input) => {
      record('echo', input as Record<string, unknown>);
      return { content: [{ type: 'text', text: `echo: ${input.text}` }] };
    });
    return mcp;
  };
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const authorization = request.headers.authorization;
    if (authorization !== `Bearer ${options.token}`) {
      refused += 1;
      response.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'unauthorized', message: 'bad token' } }));
      return;
    }
    if (request.method !== 'POST') {
      response.writeHead(405).end();
      return;
    }
    const body = await readJson(request);
    const mcp = build(authorization);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    response.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(request, response, body);
  };
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    get refused() {
      return refused;
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
