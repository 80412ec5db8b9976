/**
 * The shapes of docs/api.md, as the browser sees them. The server's zod schemas are the source of
 * truth; these mirror them by hand because the web app is a separate build that imports nothing
 * from `src/`.
 */

export type AgentState = 'neverRun' | 'running' | 'failed' | 'blocked' | 'idle';

export interface Workspace {
  id: string;
  name: string;
  dataDir: string;
  seeding: 'pending' | 'done';
  seededAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface Agent {
  id: string;
  workspaceId: string;
  name: string;
  title: string;
  persona: string;
  systemPrompt: string | null;
  skills: string[];
  adapterId: string | null;
  modelId: string | null;
  effort: string | null;
  contextSize: number | null;
  silenceTimeoutMinutes: number | null;
  reportsTo: string | null;
  state: AgentState;
  createdAt: string;
  updatedAt: string;
}

export type AgentPatch = Partial<Omit<Agent, 'id' | 'workspaceId' | 'state' | 'createdAt' | 'updatedAt'>>;

export type Mode = 'chat' | 'review' | 'plan' | 'orchestrate';
export type Autonomy = 'proposeOnly' | 'askFirst' | 'actWithApproval' | 'actFreely';
export type PickerValue = 'Agent' | 'Ask' | 'Autopilot' | 'Plan' | 'Orchestrate';

export interface Space {
  id: string;
  workspaceId: string;
  name: string;
  kind: 'room' | 'pullRequest';
  mode: Mode;
  autonomy: Autonomy;
  picker: PickerValue | null;
  defaultAgentId: string | null;
  repoPath: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface Conversation {
  id: string;
  spaceId: string;
  parentConversationId: string | null;
  branchedFromMessageId: string | null;
  title: string;
  goal: string | null;
  mode: Mode;
  createdAt: string;
  updatedAt: string;
}

export interface Message {
  id: string;
  conversationId: string;
  runId: string | null;
  role: 'user' | 'assistant' | 'system';
  authorKind: 'operator' | 'agent' | 'system';
  authorId: string | null;
  mode: string | null;
  picker: string | null;
  content: string;
  createdAt: string;
}

export type RunState = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

export interface Run {
  id: string;
  agentId: string;
  spaceId: string | null;
  conversationId: string | null;
  parentRunId: string | null;
  state: RunState;
  liveness: string;
  deliverableFailed: boolean;
  error: string | null;
  createdAt: string;
  startedAt: string | null;
  endedAt: string | null;
  mode: string | null;
  autonomy: string | null;
  model: string | null;
  depth: number;
  costUsd: number;
}

export interface ToolCallRecord {
  id: string;
  name: string;
  input: unknown;
  output: string | null;
  isError: boolean | null;
  executed: boolean;
  decision: string | null;
  decidedBy: { scope: string; ruleId: string | null } | null;
  classes: string[];
  startedAt: string | null;
  endedAt: string | null;
}

export interface RunEventRecord {
  sequence: number;
  type: string;
  data: unknown;
  at: string;
}

export interface RunDetail {
  run: Run;
  toolCalls: ToolCallRecord[];
  events: RunEventRecord[];
}

/** The harness's AgentEvent (src/harness/agent-events.ts), loosely typed: unknown kinds are shown generically. */
export interface AgentEvent {
  type: string;
  text?: string;
  call?: { id: string; name: string; input?: unknown };
  result?: { content: string; isError: boolean };
  executed?: boolean;
  toolName?: string;
  attempt?: number;
  [key: string]: unknown;
}

export interface Approval {
  id: string;
  kind: string;
  status: 'pending' | 'approved' | 'rejected' | 'expired';
  durable: boolean;
  runId: string | null;
  agentId: string | null;
  spaceId: string | null;
  conversationId: string | null;
  title: string;
  request: Record<string, unknown>;
  decidedBy: string | null;
  reason: string | null;
  remember: boolean;
  createdAt: string;
  decidedAt: string | null;
}

export interface QuestionItem {
  question: string;
  options?: string[];
}

export interface QuestionSet {
  id: string;
  runId: string | null;
  conversationId: string | null;
  questions: QuestionItem[];
  status: string;
  answers: string[] | null;
}

export type PresenceStatus = 'idle' | 'thinking' | 'executing' | 'blocked' | 'done';

export interface Presence {
  agentId: string;
  status: PresenceStatus;
  runId: string | null;
  since: string | null;
}

export type PlanNodeState = 'pending' | 'ready' | 'running' | 'done' | 'failed' | 'cancelled' | 'blocked';

export interface PlanNode {
  key: string;
  title: string;
  description: string;
  dependsOn: string[];
  state?: PlanNodeState | string;
  runId?: string | null;
  assigneeAgentId?: string | null;
  error?: string | null;
}

/** One node's estimate: the server sends tokens and US dollars (null when the price is unknown). */
export interface NodeCost {
  key: string;
  usd?: number | null;
  cost?: number | null;
  amount?: number | null;
  inputTokens?: number;
  outputTokens?: number;
}

export interface CostTotal {
  usd: number | null;
  inputTokens?: number;
  outputTokens?: number;
}

export interface CostEstimate {
  perNode: NodeCost[] | Record<string, number>;
  total: number | CostTotal;
  currency: string;
  basis: string;
}

export interface PlanError {
  message: string;
  code?: string;
  field?: string;
  nodeKey?: string;
}

/** A plan as `src/schemas/plan.ts` sends it: progress is `progress {settled, total}` with `status`. */
export interface Plan {
  id: string;
  conversationId: string | null;
  spaceId?: string | null;
  agentId?: string | null;
  runId?: string | null;
  goal: string;
  status: string;
  version: number;
  stepCount?: number;
  nodes: PlanNode[];
  errors: Array<string | PlanError>;
  costEstimate: CostEstimate | null;
  progress?: { settled: number; total: number } | null;
  reason?: string | null;
  createdAt?: string;
  updatedAt?: string;
}

export interface SettingsView {
  apiKeys: Partial<Record<string, 'set'>>;
  baseUrls: Partial<Record<string, string>>;
  defaultSilenceTimeoutMinutes: number;
  delegationDepth: number;
  approvalTimeoutSeconds: number;
  questionTimeoutSeconds: number;
  maxConcurrentRuns: number;
}

export interface HonestyRow {
  capability: string;
  mode?: string;
  level: 'enforced' | 'partial' | 'none';
  detail: string;
}

export interface HonestyMatrix {
  adapters: Array<{ id: string; label: string; rows: HonestyRow[] }>;
}

/** One event of the workspace's SSE stream (src/services/event-bus.ts). */
export interface WorkspaceEvent {
  sequence: number;
  workspaceId: string;
  type: string;
  at: string;
  data: unknown;
}
