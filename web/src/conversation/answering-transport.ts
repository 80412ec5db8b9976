import type { Agent, HonestyMatrix, Space } from '../api/types';

type Transport = HonestyMatrix['transports'][number];

/**
 * The agent a message typed in this space goes to when it names nobody — the server's own order
 * (turn-service `addressedAgent`): the space's default agent, else `ceo`, else the first agent.
 */
export function answeringAgent(space: Pick<Space, 'defaultAgentId'>, agents: readonly Agent[]): Agent | undefined {
  if (space.defaultAgentId) return agents.find((agent) => agent.id === space.defaultAgentId);
  return agents.find((agent) => agent.name === 'ceo') ?? agents[0];
}

/**
 * RLY-3: whether the transport that answers in this space declares that relay modes have no effect
 * (`relayModes: 'none'`, e.g. OpenAI Image) — then the composer still shows all four modes, each marked
 * "no effect on <transport>". Unknown while the agents or the declarations load: no mark.
 */
export function transportWithoutModes(space: Pick<Space, 'defaultAgentId'>, agents: readonly Agent[] | undefined, transports: readonly Transport[] | undefined): Transport | null {
  if (!agents || !transports) return null;
  const agent = answeringAgent(space, agents);
  if (!agent) return null;
  const transport = transports.find((candidate) => candidate.adapterId === (agent.adapterId ?? 'builtin'));
  return transport?.relayModes === 'none' ? transport : null;
}

/**
 * TRUTH-1: the transport that answers in this space when it declares no way to honour the autonomy
 * dial (its own tools run unasked: Grok CLI, Copilot's extension engine) — then the composer offers
 * only the picker values that do not promise to ask. Null when it honours the dial or is unknown.
 */
export function transportIgnoringAutonomy(space: Pick<Space, 'defaultAgentId'>, agents: readonly Agent[] | undefined, transports: readonly Transport[] | undefined): Transport | null {
  if (!agents || !transports) return null;
  const agent = answeringAgent(space, agents);
  if (!agent) return null;
  const transport = transports.find((candidate) => candidate.adapterId === (agent.adapterId ?? 'builtin'));
  return transport && transport.honours.spaceSettings.autonomy === undefined && transport.relayModes !== 'none' ? transport : null;
}
