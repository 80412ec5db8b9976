import { resolve as resolvePath } from 'node:path';
import type { AgentTransport, RunScope } from '../../adapters/agent-transport.js';
import { buildCapabilityPreamble } from '../../core/capability-preamble.js';
import { getCapabilityProfile, type CapabilityProfile } from '../../core/capability-profiles.js';
import { buildCompletionContract, type CompletionContract } from '../../core/completion-contract.js';
import type { ToolDescriptor } from '../../core/tool-descriptor.js';
import { buildToolSurface } from '../../core/tool-surface.js';
import { worktreeState } from '../../core/worktree-state.js';
import type { ConversationWorktree } from '../../git/git-worktrees.js';
import { assembleSystemPrompt } from '../../harness/assemble-system-prompt.js';
import type { WorkspaceSettings } from '../../schemas/settings.js';
import { builtinTools, toolDescriptors } from '../../tools/builtin-tools.js';
import { configuredSearchProvider } from '../../tools/web/configured-search-provider.js';
import type { Tool } from '../../tools/define-tool.js';
import type { AgentService } from '../agents/agent-service.js';
import type { CheckoutService } from '../workspaces/checkout-service.js';
import { workingEnvironmentSentence } from './working-environment-sentence.js';
import { runsToolsOnHost } from '../../adapters/transport-capabilities.js';
import type { ConfigPin } from '../../store/pinned-config-reads.js';

/** Extra tools a mode brings (plan verbs, review verbs…), registered by the services that own them. */
export type ModeToolProvider = (context: ModeToolContext) => Tool[];

/** What a mode-tool provider is told about the run it equips: the run's scope and its run tree. */
export interface ModeToolContext extends Omit<RunScope, 'autonomy'> {
  /** The conversation whose run tree the run belongs to (a child run's too); its own children join it. */
  treeConversationId: string | null;
  autonomy?: RunScope['autonomy'];
}

/**
 * Built-in tools an external runner has its own version of; they are not served over MCP. The web
 * tools are among them: runners keep their own web access, outside the domain rules (TOOL-1; the
 * honesty matrix's web row says so per runner).
 */
const NATIVE_EQUIVALENTS = new Set(['read', 'list', 'glob', 'grep', 'write', 'edit', 'bash', 'task', 'todo', 'web_fetch', 'web_search']);

/**
 * Server-side work the prepare stage runs once the run's checkout exists and before its prompt is
 * assembled (SKL-4, SKL-5): writing what a runner discovers on its own (scanned skills) into
 * server-owned folders, and adding prompt parts (the repo-skills index). Registered by the services
 * that own the work; a hook that throws fails the run's preparation (fail-closed).
 */
export type PrepareHook = (context: PrepareHookContext) => Promise<PrepareHookResult | void>;

/** What a prepare hook is told about the run. */
export interface PrepareHookContext {
  scope: RunScope;
  transport: AgentTransport;
  /** The workspace's server-owned folder. */
  workspaceDir: string;
  checkoutKey: string;
  repoPath: string | null;
  /** Absolute path of the run's checkout. */
  worktreePath: string;
  isChildRun: boolean;
  /** The run's configuration pin: reads of the space, its repositories, skills and MCP servers go through it (see pinnedRead). */
  configPin?: ConfigPin | undefined;
}

/** Prompt parts a prepare hook contributes. */
export interface PrepareHookResult {
  /** HAR-1: the active repository's skills, for the prompt's "Repository skills" section. */
  repoSkillsIndex?: string;
  /** SKL-1, SKL-2: the agent's skills it can load, for the prompt's Skills section (none listed without such a hook). */
  skills?: Array<{ name: string; description: string }>;
}

/** What the prepare stage is asked to equip. */
export interface PrepareRunRequest {
  scope: RunScope;
  treeConversationId: string | null;
  transport: AgentTransport;
  settings: WorkspaceSettings;
  depth: number;
  /** A child run's surface can only be narrower than its parent's (HAR-5). */
  surfaceCeiling?: ReadonlySet<string> | undefined;
  /** The checkout the run works in (SEC-7) and the repository it is made from. */
  checkoutKey: string;
  repoPath: string | null;
  isChildRun: boolean;
  /** The workspace's folder (prepare hooks write server-owned files under it). */
  workspaceDir?: string;
  /** Read at the run's start; handed to the prepare hooks (see {@link PrepareHookContext.configPin}). */
  configPin?: ConfigPin;
}

/** A run equipped for its transport: checkout, tools, prompt and contract. */
export interface PreparedRun {
  profile: CapabilityProfile;
  checkout: ConversationWorktree;
  /** Absolute path of the checkout the run's tools act on. */
  worktreePath: string;
  /** Whether the agent's commits are brought over to the user's repository when the run ends (SEC-3). */
  syncCheckout: boolean;
  /** The run's tools on its surface, by name (HAR-3). */
  tools: Map<string, Tool>;
  surfacedNames: ReadonlySet<string>;
  surfaced: ToolDescriptor[];
  /** The tools an external runner reaches over MCP: the surface without what it has natively. */
  mcpTools: Map<string, Tool>;
  systemPrompt: string;
  contract: CompletionContract | null;
}

/** The services the prepare stage reads. */
export interface PrepareRunDeps {
  agents: AgentService;
  checkouts: CheckoutService;
  modeTools: readonly ModeToolProvider[];
  /** Run in order after the checkout is made (see {@link PrepareHook}). */
  hooks?: readonly PrepareHook[];
}

/**
 * The prepare stage of the run pipeline (CAP-1, CAP-7, HAR-3, HAR-4, HAR-5): the mode's capability
 * profile, the conversation's checkout, the tool surface (built-in tools and the mode's verbs,
 * narrowed by delegation depth and a parent's ceiling), the system prompt and the completion
 * contract. An in-process transport gets every surfaced tool; an external runner brings its own
 * file and shell tools, so its prompt and its MCP set name only the product's tools.
 */
export async function prepareRun(deps: PrepareRunDeps, request: PrepareRunRequest): Promise<PreparedRun> {
  const { scope, transport, settings } = request;
  const { workspaceId, agent } = scope;
  const profile = getCapabilityProfile(scope.mode);
  const checkout = await deps.checkouts.ensure(workspaceId, request.checkoutKey, request.repoPath);
  // A folder (a space without a repository of its own) may still hold linked repositories' checkouts (SKL-4).
  const syncCheckout = worktreeState(profile) !== 'readOnly' && !request.isChildRun;
  const repoSkillsIndex: string[] = [];
  const skills: Array<{ name: string; description: string }> = [];
  for (const hook of deps.hooks ?? []) {
    const added = await hook({ scope, transport, workspaceDir: request.workspaceDir ?? '', checkoutKey: request.checkoutKey, repoPath: request.repoPath, worktreePath: resolvePath(checkout.path), isChildRun: request.isChildRun, configPin: request.configPin });
    if (added?.repoSkillsIndex) repoSkillsIndex.push(added.repoSkillsIndex);
    if (added?.skills) skills.push(...added.skills);
  }

  // The registry: built-in tools plus the mode's own verbs; one-shot and child runs have no ask_user (PLAN-4).
  const providerContext: ModeToolContext = { ...scope, treeConversationId: request.treeConversationId };
  const registry = [...builtinTools({ webSearch: configuredSearchProvider(settings) }), ...deps.modeTools.flatMap((provider) => provider(providerContext))].filter(
    (tool) => scope.conversationId !== null || tool.name !== 'ask_user',
  );
  const withinDepth = registry.filter((tool) => tool.name !== 'task' || request.depth + 1 < settings.delegationDepth);
  let surfaced = buildToolSurface(profile, toolDescriptors(withinDepth));
  // A subagent reports back to its parent: it never delivers the mode's verb itself, and its
  // surface is the parent's or narrower (HAR-5).
  const ceiling = request.surfaceCeiling;
  if (ceiling) surfaced = surfaced.filter((tool) => ceiling.has(tool.name) && tool.name !== profile.outputVerb);
  const surfacedNames = new Set(surfaced.map((tool) => tool.name));
  const tools = new Map(withinDepth.filter((tool) => surfacedNames.has(tool.name)).map((tool) => [tool.name, tool]));
  const mcpTools = new Map([...tools].filter(([name]) => !NATIVE_EQUIVALENTS.has(name)));

  // CAP-7: the mode block names exactly the tools this runner gets from us.
  const external = !runsToolsOnHost(transport.capabilities);
  // A runner that gets no MCP server (the Grok CLI) is promised none of the product tools.
  const runnerToolsOnly = external && !transport.capabilities.gates.productTools;
  const promptTools = runnerToolsOnly ? [] : external ? surfaced.filter((tool) => mcpTools.has(tool.name)) : surfaced;
  const systemPrompt = assembleSystemPrompt({
    agentName: agent.name,
    title: agent.title,
    persona: agent.persona,
    systemPrompt: agent.systemPrompt,
    skills,
    ...(repoSkillsIndex.length > 0 ? { repoSkillsIndex: repoSkillsIndex.join('\n\n') } : {}),
    modeBlock: buildCapabilityPreamble(profile, promptTools, { runnerToolsOnly }),
    environment: workingEnvironmentSentence(transport.capabilities),
  });
  // HAR-4: a contract only where its verb is on the surface; a verb no tool implements (orchestrate's
  // propose_orchestration today) could never be met, so the run is neither reminded nor flagged.
  const declared = ceiling ? null : buildCompletionContract(profile);
  const contract = declared && tools.has(declared.outputVerb) ? declared : null;
  return { profile, checkout, worktreePath: resolvePath(checkout.path), syncCheckout, tools, surfacedNames, surfaced, mcpTools, systemPrompt, contract };
}
