import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { EffectClass } from '@server/core/effect-classes';
import type { McpServer, McpServerTool } from '@server/schemas/mcp-server';
import { api, errorMessage, request } from '../api/client';
import { useAgents } from '../api/hooks';
import { SettingsNav } from '../pages/SettingsNav';
import { useWorkspaceRole } from '../settings/people/people-hooks';
import { ReadOnlyFieldset } from '../ui/ReadOnlyFieldset';
import { ReadOnlyNote } from '../ui/ReadOnlyNote';
import { Empty, ErrorState, Loading } from '../ui/states';
import { EFFECT_KINDS, effectWord } from '../ui/words';

/** `NAME=VALUE` lines into an object; blank lines are skipped. */
function pairsOf(text: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const line of text.split('\n').map((item) => item.trim()).filter(Boolean)) {
    const at = line.indexOf('=');
    result[at > 0 ? line.slice(0, at) : line] = at > 0 ? line.slice(at + 1) : '';
  }
  return result;
}

const linesOf = (text: string) => text.split('\n').map((item) => item.trim()).filter(Boolean);

/**
 * TOOL-2: Settings → MCP servers. Operators add stdio or streamable HTTP servers, choose the agents
 * that get them, list their tools — descriptions are the server's untrusted text, shown as plain text
 * with the scan's findings — and assign each tool its effect classes (every class until they do, so
 * every call asks). Secrets (environment variables, headers) are write-only: only their names come back.
 */
export function McpServersPage({ ws }: { ws: string }) {
  const base = `/api/workspaces/${ws}/mcp-servers`;
  const client = useQueryClient();
  const servers = useQuery({ queryKey: ['mcp-servers', ws], queryFn: () => api.get<{ servers: McpServer[] }>(base) });
  const agents = useAgents(ws);
  const refresh = () => void client.invalidateQueries({ queryKey: ['mcp-servers', ws] });
  const listTools = useMutation({ mutationFn: (id: string) => api.post<McpServer>(`${base}/${id}/tools/list`), onSuccess: refresh });
  const remove = useMutation({ mutationFn: (id: string) => api.delete(`${base}/${id}`), onSuccess: refresh });
  const setAgents = useMutation({ mutationFn: (input: { id: string; agents: string[] }) => api.patch<McpServer>(`${base}/${input.id}`, { agents: input.agents }), onSuccess: refresh });
  const agentList = agents.data?.agents ?? [];
  // TEAM-2: servers are the admins'; others read them, with every control disabled and no add form.
  const { role, canAdminister } = useWorkspaceRole(ws);

  return (
    <main className="page" data-testid="mcp-servers-page">
      <SettingsNav ws={ws} active="mcp" />
      <h2>MCP servers</h2>
      <p className="small muted">
        Tools of MCP servers your team runs, for the agents you choose. A stdio server runs in the runner sandbox without network unless you allow it; every call of a tool passes the policy gate with the effect classes you give the tool. Until you do, a tool declares every class, so each call asks.
      </p>
      {canAdminister ? null : <ReadOnlyNote role={role} needs="admin" what="adding or changing MCP servers" />}
      {[listTools, remove, setAgents].map((mutation, index) =>
        mutation.isError ? (
          <p key={index} className="error small" role="alert">
            {errorMessage(mutation.error)}
          </p>
        ) : null,
      )}
      {servers.isPending ? (
        <Loading />
      ) : servers.isError ? (
        <ErrorState error={servers.error} what="MCP servers" retry={() => void servers.refetch()} />
      ) : servers.data.servers.length === 0 ? (
        <Empty title="No MCP servers">{canAdminister ? 'Add one below.' : 'None added yet.'}</Empty>
      ) : (
        servers.data.servers.map((server) => (
          <ReadOnlyFieldset key={server.id} readOnly={!canAdminister}>
          <section key={server.id} className="card" aria-labelledby={`mcp-${server.id}`} data-testid={`mcp-server-${server.name}`}>
            <h3 id={`mcp-${server.id}`}>
              {server.name} <span className="small muted">({server.transport})</span>
            </h3>
            <p className="small">
              {server.transport === 'stdio' ? `${server.command ?? ''} ${server.args.join(' ')}` : server.url}
              {Object.keys(server.secrets).length > 0 ? ` — secrets set: ${Object.keys(server.secrets).join(', ')}` : ''}
              {server.transport === 'stdio' ? ` — network: ${server.network ?? 'none'}` : ''}
            </p>
            {server.lastError ? (
              <p className="error small" role="alert">
                Last connection failed: {server.lastError}
              </p>
            ) : null}
            <fieldset className="small">
              <legend>Agents that get its tools</legend>
              <div className="inline wrap">
              {agentList.map((agent) => (
                <label key={agent.id} className="checkbox">
                  <input
                    type="checkbox"
                    checked={server.agents.includes(agent.id)}
                    onChange={(event) =>
                      setAgents.mutate({ id: server.id, agents: event.target.checked ? [...server.agents, agent.id] : server.agents.filter((id) => id !== agent.id) })
                    }
                  />
                  {agent.name}
                </label>
              ))}
              </div>
            </fieldset>
            <button type="button" className="btn btn-small" onClick={() => listTools.mutate(server.id)} disabled={listTools.isPending}>
              {server.tools ? 'List tools again' : 'List tools'}
            </button>{' '}
            <button type="button" className="btn btn-small" onClick={() => remove.mutate(server.id)} disabled={remove.isPending}>
              Remove {server.name}
            </button>
            {server.tools ? <ToolTable ws={ws} server={server} onSaved={refresh} /> : <p className="small muted">Tools not listed yet.</p>}
          </section>
          </ReadOnlyFieldset>
        ))
      )}
      {canAdminister ? <AddServerForm ws={ws} agents={agentList} onAdded={refresh} /> : null}
    </main>
  );
}

function ToolTable({ ws, server, onSaved }: { ws: string; server: McpServer; onSaved: () => void }) {
  if (server.tools!.length === 0) return <p className="small muted">The server lists no tools.</p>;
  return (
    <table className="table">
      <thead>
        <tr>
          <th>Tool</th>
          <th>Description (the server's text)</th>
          <th>Scan</th>
          <th>Effect classes</th>
        </tr>
      </thead>
      <tbody>
        {server.tools!.map((tool) => (
          <ToolRow key={tool.name} ws={ws} serverId={server.id} tool={tool} onSaved={onSaved} />
        ))}
      </tbody>
    </table>
  );
}

function ToolRow({ ws, serverId, tool, onSaved }: { ws: string; serverId: string; tool: McpServerTool; onSaved: () => void }) {
  const [classes, setClasses] = useState<EffectClass[]>(tool.effects);
  const save = useMutation({
    mutationFn: (effects: EffectClass[]) => request<McpServer>('PUT', `/api/workspaces/${ws}/mcp-servers/${serverId}/tools/${encodeURIComponent(tool.name)}/effects`, { effects }),
    onSuccess: onSaved,
  });
  return (
    <tr data-testid={`mcp-tool-${tool.name}`}>
      <td data-label="Tool">
        <code>{tool.agentToolName || tool.name}</code>
      </td>
      <td className="small" data-label="Description">{tool.description}</td>
      <td className="small" data-label="Scan">
        {tool.verdict}
        {tool.findings.length > 0 ? (
          <ul>
            {tool.findings.map((finding, index) => (
              <li key={index}>
                [{finding.severity}] {finding.ruleId} — {finding.message}
              </li>
            ))}
          </ul>
        ) : null}
      </td>
      <td className="small" data-label="Effect classes">
        <p>{tool.effectsAssigned ? (tool.effects.length === 0 ? 'None: changes nothing' : 'Assigned') : 'Not reviewed: every class, every call asks'}</p>
        <fieldset aria-label={`Effect classes of ${tool.name}`} className="inline wrap">
          {(EFFECT_KINDS as readonly EffectClass[]).map((effect) => (
            <label key={effect} className="checkbox">
              <input type="checkbox" checked={classes.includes(effect)} onChange={(event) => setClasses(event.target.checked ? [...classes, effect] : classes.filter((item) => item !== effect))} />
              {effectWord(effect)}
            </label>
          ))}
        </fieldset>
        <button type="button" className="btn btn-small" onClick={() => save.mutate(classes)} disabled={save.isPending}>
          Save classes of {tool.name}
        </button>{' '}
        <button
          type="button"
          className="btn btn-small"
          onClick={() => {
            setClasses([]);
            save.mutate([]);
          }}
          disabled={save.isPending}
        >
          {tool.name} changes nothing
        </button>
        {save.isError ? (
          <span className="error" role="alert">
            {errorMessage(save.error)}
          </span>
        ) : null}
      </td>
    </tr>
  );
}

function AddServerForm({ ws, agents, onAdded }: { ws: string; agents: Array<{ id: string; name: string }>; onAdded: () => void }) {
  const [transport, setTransport] = useState<'stdio' | 'http'>('stdio');
  const [name, setName] = useState('');
  const [command, setCommand] = useState('');
  const [args, setArgs] = useState('');
  const [network, setNetwork] = useState<'none' | 'host'>('none');
  const [paths, setPaths] = useState('');
  const [url, setUrl] = useState('');
  const [secrets, setSecrets] = useState('');
  const [chosen, setChosen] = useState<string[]>([]);
  const base = `/api/workspaces/${ws}/mcp-servers`;
  const add = useMutation({
    mutationFn: async () => {
      const common = { name, agents: chosen };
      const body =
        transport === 'stdio'
          ? { ...common, transport, command, args: linesOf(args), network, readOnlyPaths: linesOf(paths), env: pairsOf(secrets) }
          : { ...common, transport, url, headers: pairsOf(secrets) };
      const created = await api.post<McpServer>(base, body);
      return api.post<McpServer>(`${base}/${created.id}/tools/list`);
    },
    onSuccess: () => {
      setName('');
      setSecrets('');
      onAdded();
    },
  });
  return (
    <section className="card" aria-labelledby="mcp-add">
      <h3 id="mcp-add">Add a server</h3>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          add.mutate();
        }}
      >
        <label className="small">
          Name (tools are called mcp__name__tool)
          <input value={name} onChange={(event) => setName(event.target.value)} />
        </label>
        <label className="small">
          Transport
          <select value={transport} onChange={(event) => setTransport(event.target.value === 'http' ? 'http' : 'stdio')}>
            <option value="stdio">stdio (a program, in the sandbox)</option>
            <option value="http">streamable HTTP (a URL)</option>
          </select>
        </label>
        {transport === 'stdio' ? (
          <>
            <label className="small">
              Program (absolute path; no shell)
              <input value={command} onChange={(event) => setCommand(event.target.value)} />
            </label>
            <label className="small">
              Arguments (one per line, literal)
              <textarea value={args} onChange={(event) => setArgs(event.target.value)} rows={3} />
            </label>
            <label className="small">
              Network
              <select value={network} onChange={(event) => setNetwork(event.target.value === 'host' ? 'host' : 'none')}>
                <option value="none">none</option>
                <option value="host">host network</option>
              </select>
            </label>
            <label className="small">
              Readable paths (one per line)
              <textarea value={paths} onChange={(event) => setPaths(event.target.value)} rows={2} />
            </label>
          </>
        ) : (
          <label className="small">
            URL
            <input value={url} onChange={(event) => setUrl(event.target.value)} />
          </label>
        )}
        <label className="small">
          {transport === 'stdio' ? 'Environment variables' : 'Headers'} (NAME=VALUE per line; write-only)
          <textarea value={secrets} onChange={(event) => setSecrets(event.target.value)} rows={2} />
        </label>
        <fieldset className="small">
          <legend>Agents</legend>
          <div className="inline wrap">
          {agents.map((agent) => (
            <label key={agent.id} className="checkbox">
              <input type="checkbox" checked={chosen.includes(agent.id)} onChange={(event) => setChosen(event.target.checked ? [...chosen, agent.id] : chosen.filter((id) => id !== agent.id))} />
              {agent.name}
            </label>
          ))}
          </div>
        </fieldset>
        <button type="submit" className="btn btn-small" disabled={!name.trim() || add.isPending}>
          Add server
        </button>
        {add.isError ? (
          <p className="error small" role="alert">
            {errorMessage(add.error)}
          </p>
        ) : null}
      </form>
    </section>
  );
}
