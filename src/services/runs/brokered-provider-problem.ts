import type { AgentTransport } from '../../adapters/agent-transport.js';
import { runsToolsOnHost } from '../../adapters/transport-capabilities.js';
import type { Agent } from '../../schemas/agent.js';
import type { ModelBroker } from '../model-broker.js';

/**
 * TRUTH-4: before a run starts, why its runner's model cannot be reached through the model proxy (its
 * provider has no key or no base URL, or nothing listens at that URL), naming the setting to fix; null when it can, or when the
 * transport calls no model through the proxy (the built-in harness resolves its own model; an ACP
 * agent may bring its own).
 */
export async function brokeredProviderProblem(broker: ModelBroker | undefined, transport: AgentTransport, agent: Agent, workspaceId: string): Promise<string | null> {
  if (!broker || runsToolsOnHost(transport.capabilities) || transport.modelProviderOptional) return null;
  const provider = transport.modelProvider?.(agent);
  if (!provider) return null;
  return (await broker.setupProblem(workspaceId, provider)) ?? (await broker.reachProblem(workspaceId, provider));
}
