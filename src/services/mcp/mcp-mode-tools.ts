import { z } from 'zod';
import { mcpToolDescriptor } from '../../core/mcp/mcp-tool-descriptor.js';
import type { Tool } from '../../tools/define-tool.js';
import type { ModeToolProvider, PrepareHook } from '../runs/prepare-run.js';
import type { McpServerService, RunnableMcpTool } from './mcp-server-service.js';

/**
 * The input schema of a server's tool as zod: any JSON object is accepted here (the server checks its
 * own schema), and the server's JSON schema is what the model sees — zod's `toJSONSchema` merges the
 * metadata into the schema it produces. Keys zod's registry treats specially (`id`) and the dialect
 * marker are left out.
 */
function parametersOf(inputSchema: Record<string, unknown>): z.ZodType<Record<string, unknown>> {
  const { $schema: _dialect, id: _id, $id: _schemaId, ...schema } = inputSchema;
  return z.looseObject({}).meta({ ...schema, type: 'object' }) as unknown as z.ZodType<Record<string, unknown>>;
}

/** One server tool as a product tool: the operator's classes decide its surface and every call's policy. */
function toTool(services: McpServerService, workspaceId: string, tool: RunnableMcpTool): Tool<Record<string, unknown>> {
  return {
    ...mcpToolDescriptor(tool.agentToolName, tool.modelDescription, tool.effects),
    parameters: parametersOf(tool.inputSchema),
    async execute(input, context) {
      const outcome = await services.connections.call(workspaceId, tool.server, tool.toolName, input, tool.reviewedFingerprint, context.signal);
      return { content: outcome.content, isError: outcome.isError, details: outcome.details };
    },
  };
}

/**
 * Operators' MCP servers on a run's surface (TOOL-2). The prepare hook reads, per run, the tools of
 * the servers enabled for the run's agent (a database read, which a tool provider cannot make: those
 * are synchronous); the provider then hands them to the registry, where the mode's profile filters
 * them like any tool (CAP-1a) and the gate decides every call (POL-1). External runners reach the same
 * tools only through the Control Center's MCP endpoint, so the gate holds for them too.
 */
export function mcpServerTools(services: McpServerService): { hook: PrepareHook; provider: ModeToolProvider } {
  const prepared = new Map<string, { tools: Tool[]; at: number }>();
  // The service hands the same runnable tools until their server changes: their product tools (a zod schema each) are made once too.
  const made = new WeakMap<RunnableMcpTool, Tool>();
  const productTool = (workspaceId: string, tool: RunnableMcpTool): Tool => {
    let product = made.get(tool);
    if (!product) made.set(tool, (product = toTool(services, workspaceId, tool) as Tool));
    return product;
  };
  return {
    hook: async ({ scope, configPin }) => {
      // A run whose preparation failed after this hook never asks the provider: its entry is dropped here later.
      const stale = performance.now() - PREPARED_KEPT_MS;
      for (const [runId, entry] of prepared) if (entry.at < stale) prepared.delete(runId);
      const runnable = await services.toolsForAgent(scope.workspaceId, scope.agent.id, configPin);
      if (runnable.length > 0) prepared.set(scope.runId, { tools: runnable.map((tool) => productTool(scope.workspaceId, tool)), at: performance.now() });
    },
    provider: ({ runId }) => {
      const entry = prepared.get(runId);
      prepared.delete(runId);
      return entry?.tools ?? [];
    },
  };
}

/** How long a run's prepared tools wait for its registry to be built (it is built right after the hooks). */
const PREPARED_KEPT_MS = 10 * 60_000;
