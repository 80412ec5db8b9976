/** TanStack Query keys. Everything of one workspace lives under `['ws', id]`, so it can be dropped at once. */
export const keys = {
  workspaces: ['workspaces'] as const,
  modes: ['modes'] as const,
  honesty: ['honesty-matrix'] as const,
  workspace: (ws: string) => ['ws', ws] as const,
  agents: (ws: string) => ['ws', ws, 'agents'] as const,
  settings: (ws: string) => ['ws', ws, 'settings'] as const,
  spaces: (ws: string) => ['ws', ws, 'spaces'] as const,
  space: (ws: string, spaceId: string) => ['ws', ws, 'space', spaceId] as const,
  conversations: (ws: string, spaceId: string) => ['ws', ws, 'conversations', spaceId] as const,
  allConversations: (ws: string) => ['ws', ws, 'conversations'] as const,
  conversation: (ws: string, conversationId: string) => ['ws', ws, 'conversation', conversationId] as const,
  messages: (ws: string, conversationId: string) => ['ws', ws, 'messages', conversationId] as const,
  runs: (ws: string, conversationId: string) => ['ws', ws, 'runs', conversationId] as const,
  allRuns: (ws: string) => ['ws', ws, 'runs'] as const,
  run: (ws: string, runId: string) => ['ws', ws, 'run', runId] as const,
  /** Client-only: the AgentEvents of a run received over SSE, folded (see live-run.ts). */
  liveRun: (ws: string, runId: string) => ['ws', ws, 'live', runId] as const,
  approvals: (ws: string) => ['ws', ws, 'approvals'] as const,
  /** Under `approvals`, so every approval change refreshes it too. */
  conversationApprovals: (ws: string, conversationId: string) => ['ws', ws, 'approvals', 'conversation', conversationId] as const,
  questions: (ws: string) => ['ws', ws, 'questions'] as const,
  /** Everything waiting for a person, and where runs are running (the Inbox, its badge, the sidebar's marks). */
  inbox: (ws: string) => ['ws', ws, 'inbox'] as const,
  presence: (ws: string) => ['ws', ws, 'presence'] as const,
  plans: (ws: string, conversationId: string) => ['ws', ws, 'plans', conversationId] as const,
  allPlans: (ws: string) => ['ws', ws, 'plans'] as const,
  plan: (ws: string, planId: string) => ['ws', ws, 'plan', planId] as const,
  policyRules: (ws: string) => ['ws', ws, 'policy-rules'] as const,
  /** Under `run`, so a run's pause/resume events refresh what it allows. */
  runControls: (ws: string, runId: string) => ['ws', ws, 'run', runId, 'controls'] as const,
  runTree: (ws: string, conversationId: string) => ['ws', ws, 'runs', conversationId, 'tree'] as const,
  agentRuns: (ws: string, agentId: string) => ['ws', ws, 'runs', 'agent', agentId] as const,
  operatorPresence: (ws: string) => ['ws', ws, 'presence', 'operators'] as const,
  /** Every review query of a workspace (list, detail, findings, verdict, diff). */
  reviews: (ws: string) => ['ws', ws, 'reviews'] as const,
  tickets: (ws: string) => ['ws', ws, 'tickets'] as const,
};
