import { EFFECT_CLASSES, type EffectClass } from '../core/effect-classes.js';
import type { MeteredWire } from './wire-usage-meter.js';

/**
 * A tool the PROVIDER runs on its side when a model request names it (SEC-8): a web fetch or search,
 * an MCP server it connects to, code it executes in its container. Its effect happens far from any
 * sandbox or hook of this machine, so the model proxy decides it through the run's own policy before
 * the request leaves, as the effect it is.
 */
export interface ProviderSideTool {
  /** Where the request names it, as the refusal quotes it: `tools[2].type "web_search_20250305"`, `mcp_servers[0]`. */
  field: string;
  /** What it does, for the run log and the refusal: `web search`, `MCP server https://…`. */
  what: string;
  effects: readonly EffectClass[];
  /** The URL the provider connects to, when the request names one (an MCP server): domain rules decide it. */
  url?: string;
  /**
   * How the request can go on without the tool when the policy refuses it: the top-level fields to
   * set instead (xAI Live Search: `search_parameters.mode` "off"), and what the run log says was done.
   * A tool without it is refused with the whole request.
   */
  switchOff?: { fields: Record<string, unknown>; says: string };
}

/** Provider-side web access: what a `networkEgress` rule decides. */
const EGRESS: readonly EffectClass[] = ['networkEgress'];
/**
 * Code the provider runs (code execution, a code interpreter) and any server tool this file does not
 * know: nobody here reads that code or knows what the tool reaches, so it carries every class, like
 * code the shell classifier cannot see (SEC-5) — a deny on any class is never outvoted into an ask.
 */
const UNSEEN: readonly EffectClass[] = EFFECT_CLASSES;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const quoted = (value: unknown) => JSON.stringify(typeof value === 'string' ? value.slice(0, 120) : value);

/** Anthropic server tool types by family (`web_search_20250305` → `web_search`), and what each does. */
function anthropicServerTool(type: string): { what: string; effects: readonly EffectClass[] } {
  if (/^web_search_/.test(type)) return { what: 'web search', effects: EGRESS };
  if (/^web_fetch_/.test(type)) return { what: 'web fetch', effects: EGRESS };
  if (/^mcp_toolset/.test(type)) return { what: 'MCP toolset', effects: EGRESS };
  if (/^code_execution_/.test(type)) return { what: 'code execution', effects: UNSEEN };
  return { what: `server tool ${type.slice(0, 80)}`, effects: UNSEEN };
}

/** OpenAI Responses built-in tool types and what each does. */
function responsesServerTool(type: string, tool: Json): { what: string; effects: readonly EffectClass[]; url?: string } {
  if (/^web_search/.test(type)) return { what: 'web search', effects: EGRESS };
  if (type === 'mcp') {
    const url = typeof tool.server_url === 'string' ? tool.server_url : undefined;
    return { what: `MCP server ${url ?? quoted(tool.connector_id ?? tool.server_label ?? '')}`, effects: EGRESS, ...(url ? { url } : {}) };
  }
  if (type === 'code_interpreter') return { what: 'code interpreter', effects: UNSEEN };
  return { what: `built-in tool ${type.slice(0, 80)}`, effects: UNSEEN };
}

type Describe = (type: string, tool: Json) => { what: string; effects: readonly EffectClass[]; url?: string };

/**
 * Tool entries of a `tools` array whose `type` says the provider runs them (anything but a client
 * function). A `namespace` entry (Codex groups its MCP tools in one) is a client-side folder of
 * tools: its own `tools` are read the same way, however deep.
 */
function typedTools(tools: unknown, at: string, clientTypes: ReadonlySet<string>, describe: Describe, depth = 0): ProviderSideTool[] {
  if (!Array.isArray(tools)) return [];
  const found: ProviderSideTool[] = [];
  tools.forEach((tool: unknown, index) => {
    if (!isObject(tool) || tool.type === undefined || (typeof tool.type === 'string' && clientTypes.has(tool.type))) return;
    const field = `${at}[${index}]`;
    if (tool.type === 'namespace' && clientTypes.has('function') && depth < 8) {
      found.push(...typedTools(tool.tools, `${field}.tools`, clientTypes, describe, depth + 1));
      return;
    }
    const type = typeof tool.type === 'string' ? tool.type : String(quoted(tool.type));
    found.push({ field: `${field}.type ${quoted(tool.type)}`, ...describe(type, tool) });
  });
  return found;
}

/**
 * Every provider-side tool and connector a model request's parsed JSON body names, per wire protocol
 * (read from the parsed body, never a scan of its text: a JSON escape such as `\u0077eb_search` is
 * the same string once parsed). `protocol` is the body's wire (token counting reads a Messages
 * body). Anthropic Messages: `tools[]` entries with a `type` other than `custom` (server tools), `mcp_servers[]`, `container`. OpenAI Responses: `tools[]` of a type other
 * than `function`/`custom` (inside a `namespace` too). Chat Completions: `web_search_options` and
 * `tools[]` of another type, and xAI's `search_parameters` (Live Search) unless its mode is "off" —
 * switched off rather than refused, since the Grok CLI sends it on its own in some turns. A Responses
 * `prompt` (a prompt stored on the provider, whose tools and instructions the proxy never sees) is
 * unseen code. On both OpenAI wires a model that searches by itself (see {@link searchingModel}) is
 * web search.
 */
export function findProviderSideTools(protocol: MeteredWire, body: unknown): ProviderSideTool[] {
  if (!isObject(body)) return [];
  if (protocol === 'anthropic-messages') {
    const found = typedTools(body.tools, 'tools', new Set(['custom']), (type) => anthropicServerTool(type));
    if (Array.isArray(body.mcp_servers)) {
      body.mcp_servers.forEach((server: unknown, index) => {
        const url = isObject(server) && typeof server.url === 'string' ? server.url : undefined;
        found.push({ field: `mcp_servers[${index}]`, what: `MCP server ${url ?? '(no url)'}`, effects: EGRESS, ...(url ? { url } : {}) });
      });
    } else if (body.mcp_servers !== undefined && body.mcp_servers !== null) {
      found.push({ field: 'mcp_servers', what: 'MCP servers', effects: EGRESS });
    }
    if (body.container !== undefined && body.container !== null) found.push({ field: 'container', what: 'code execution container', effects: UNSEEN });
    return found;
  }
  if (protocol === 'openai-responses') {
    const found = typedTools(body.tools, 'tools', new Set(['function', 'custom']), responsesServerTool);
    const searching = searchingModel(body.model);
    if (searching) found.push(searching);
    if (body.prompt !== undefined && body.prompt !== null) {
      const id = isObject(body.prompt) ? body.prompt.id : body.prompt;
      found.push({ field: 'prompt', what: `stored prompt ${quoted(id ?? '')} (its tools and instructions are kept by the provider)`, effects: UNSEEN });
    }
    return found;
  }
  const found = typedTools(body.tools, 'tools', new Set(['function', 'custom']), (type) => ({ what: `built-in tool ${type.slice(0, 80)}`, effects: UNSEEN }));
  const searching = searchingModel(body.model);
  if (searching) found.push(searching);
  if (body.web_search_options !== undefined && body.web_search_options !== null) found.push({ field: 'web_search_options', what: 'web search', effects: EGRESS });
  const liveSearch = xaiLiveSearch(body.search_parameters);
  if (liveSearch) found.push(liveSearch);
  return found;
}

/**
 * Models that search the web on the provider's side with no tool named in the request: OpenAI's
 * search models (`gpt-4o-search-preview`, `gpt-5-search-api`) search on every Chat Completions call,
 * and deep-research models browse as they work. The model id is the only sign, so an id with
 * `search` or `deep-research` as a word of its own is web search, decided like the tool it stands
 * for (a networkEgress deny refuses it; the defaults allow it).
 */
const SEARCHING_MODEL = /(^|[-_./:])(search|deep-research)([-_./:]|$)/i;

function searchingModel(model: unknown): ProviderSideTool | null {
  if (typeof model !== 'string' || !SEARCHING_MODEL.test(model)) return null;
  return { field: `model ${quoted(model)}`, what: 'web search (the model searches the web on the provider’s side on its own)', effects: EGRESS };
}

/**
 * xAI Live Search (`search_parameters` on Chat Completions): with mode "auto" (also when the mode is
 * left out) or "on", xAI searches the web and X on its side. The Grok CLI names it in every request
 * ("off" unless the user's message looks like it wants news), so refusing the request would fail
 * ordinary turns: when the policy refuses, the request goes on with the mode "off" and no `sources`.
 */
function xaiLiveSearch(parameters: unknown): ProviderSideTool | null {
  if (parameters === undefined || parameters === null) return null;
  if (isObject(parameters) && parameters.mode === 'off') return null;
  const { sources: _sources, ...kept } = isObject(parameters) ? parameters : {};
  const mode = isObject(parameters) ? (parameters.mode ?? 'auto') : parameters;
  return {
    field: 'search_parameters',
    what: `xAI Live Search (mode ${quoted(mode)})`,
    effects: EGRESS,
    switchOff: { fields: { search_parameters: { ...kept, mode: 'off' } }, says: 'turned off: forwarded with search_parameters.mode "off" and no sources' },
  };
}
