import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../errors/index.js';
import type { ControlCenter } from '../services/control-center.js';
import type { OperatorPrincipal, Principal } from '../services/operator-auth.js';
import { rankOf } from '../services/people/role-rank.js';
import { toModelTool } from '../tools/builtin-tools.js';

/** Operator-only MCP tools. No agent token can list or call them: an agent never decides its own approvals. */
const OPERATOR_TOOLS: McpTool[] = [
  {
    name: 'list_approvals',
    description: 'List pending approvals of a workspace (tool calls, plan exits, plans).',
    inputSchema: { type: 'object', properties: { workspaceId: { type: 'string' } }, required: ['workspaceId'] },
  },
  {
    name: 'decide_approval',
    description: 'Approve or reject a pending approval. Operators only (PLAN-9, POL-7).',
    inputSchema: {
      type: 'object',
      properties: {
        workspaceId: { type: 'string' },
        approvalId: { type: 'string' },
        decision: { type: 'string', enum: ['approve', 'reject'] },
        reason: { type: 'string' },
      },
      required: ['workspaceId', 'approvalId', 'decision'],
    },
  },
];

/** Why a person may not use an approval tool in a workspace, or null when they may. */
async function roleRefusal(app: ControlCenter, person: OperatorPrincipal, workspaceId: string, needed: 'viewer' | 'member'): Promise<string | null> {
  const held = await app.people.effectiveRole(person.operatorId, person.readOnly === true, workspaceId);
  if (held === null || held === 'signedIn') return `not_found: workspace '${workspaceId}' not found`;
  if (rankOf(held) < rankOf(needed)) return `forbidden: this needs the ${needed} role in this workspace; you hold ${held}`;
  return null;
}

function textResult(text: string, isError = false): CallToolResult {
  return { content: [{ type: 'text', text }], isError };
}

/** Builds one MCP server for one request and principal (stateless streamable HTTP). */
function createMcpServer(app: ControlCenter, principal: Principal, signal: AbortSignal): Server {
  const server = new Server({ name: 'control-center', version: '0.1.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    if (principal.kind === 'operator') return { tools: OPERATOR_TOOLS };
    const tools = app.executor.externalTools(principal.runId).map((tool) => {
      const model = toModelTool(tool);
      return { name: model.name, description: model.description, inputSchema: { type: 'object' as const, ...model.inputSchema } };
    });
    return { tools };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const { name, arguments: args = {} } = request.params;
    if (principal.kind === 'agent') {
      if (OPERATOR_TOOLS.some((tool) => tool.name === name)) {
        return textResult(`${name} is for operators only: an agent can never decide approvals, its own or anyone else's.`, true);
      }
      const result = await app.executor.callExternalTool(principal.runId, name, args, signal);
      return textResult(result.content, result.isError);
    }
    try {
      const workspaceId = String(args.workspaceId ?? '');
      // TEAM-2: the tools act as the person whose token called them, with that person's role in the workspace.
      const refusal = await roleRefusal(app, principal, workspaceId, name === 'decide_approval' ? 'member' : 'viewer');
      if (refusal) return textResult(refusal, true);
      if (name === 'list_approvals') {
        return textResult(JSON.stringify(await app.approvals.list(workspaceId, { status: 'pending' }), null, 2));
      }
      if (name === 'decide_approval') {
        const decision = args.decision === 'approve' ? 'approve' : args.decision === 'reject' ? 'reject' : null;
        if (!decision) return textResult('decision must be approve or reject', true);
        const approval = await app.approvals.decide(
          workspaceId,
          String(args.approvalId ?? ''),
          { decision, ...(typeof args.reason === 'string' ? { reason: args.reason } : {}) },
          principal,
          await app.audit.personActor(principal.operatorId),
        );
        return textResult(JSON.stringify(approval, null, 2));
      }
      return textResult(`unknown tool ${name}`, true);
    } catch (error) {
      return textResult(error instanceof DomainError ? `${error.code}: ${error.message}` : String(error), true);
    }
  });
  return server;
}

/**
 * The MCP endpoint (`/mcp`, streamable HTTP, stateless): an agent run's token sees the product tools
 * of its mode's surface, each call gated like the built-in harness's; an operator token sees the
 * approval tools.
 */
export function registerMcpServer(server: FastifyInstance, app: ControlCenter): void {
  const handle = async (request: FastifyRequest, reply: FastifyReply) => {
    const principal = request.principal!;
    const controller = new AbortController();
    // A call is cancelled when its client goes away before the answer, not when the request body has
    // been read (the request stream's own 'close' comes then, which aborted every call at once).
    reply.raw.on('close', () => {
      if (!reply.raw.writableFinished) controller.abort();
    });
    const mcp = createMcpServer(app, principal, controller.signal);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  };
  // SEC-1: a run token (the agent's tools) or the operator token (the approval tools).
  const config = { access: 'operatorOrAgent' } as const;
  server.post('/mcp', { schema: { hide: true }, config: { ...config, role: 'signedIn' } }, handle);
  server.get('/mcp', { schema: { hide: true }, config: { ...config, role: 'signedIn' } }, async (_request, reply) =>
    reply.code(405).send({ error: { code: 'method_not_allowed', message: 'this MCP server is stateless: POST JSON-RPC requests to /mcp' } }),
  );
  server.delete('/mcp', { schema: { hide: true }, config: { ...config, role: 'signedIn' } }, async (_request, reply) =>
    reply.code(405).send({ error: { code: 'method_not_allowed', message: 'this MCP server keeps no sessions' } }),
  );
}
