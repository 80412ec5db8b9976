import type { Command } from 'commander';
import { runStateWord } from './plain-words.js';
import type { Approval } from '../schemas/approval.js';
import type { Plan } from '../schemas/plan.js';
import type { Question } from '../schemas/question.js';
import type { Run } from '../schemas/run.js';
import type { Workspace } from '../schemas/workspace.js';
import type { ApiClient } from './api-client.js';
import { dollars, planCostText } from './plan-cost-text.js';
import { approvalReasonText } from './approval-reason-text.js';
import { cell } from './terminal-text.js';
import { textTable, type TextColumn } from './text-table.js';

/** What the operator commands need from main.ts: the API client and the workspace lookup. */
export interface OperatorCommandContext {
  client(): Promise<ApiClient>;
  resolveWorkspace(api: ApiClient, idOrName?: string): Promise<Workspace>;
}

const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
const json = (value: unknown) => out(JSON.stringify(value, null, 2));
const time = (iso: string | null) => (iso ? iso.replace('T', ' ').slice(0, 19) : '-');

/** id → name of a workspace's agents or spaces, fetched once per command. */
async function namesOf(api: ApiClient, path: string, key: 'agents' | 'spaces'): Promise<Map<string, string>> {
  const body = await api.request<Record<string, Array<{ id: string; name: string }>>>('GET', path);
  return new Map((body[key] ?? []).map((item) => [item.id, item.name]));
}
/** The name for an id; the id itself when it is gone (a deleted agent), "-" when there is none. */
const nameIn = (names: Map<string, string>, id: string | null) => (id === null ? '-' : (names.get(id) ?? id));

/** "42s", "3m 05s", "1h 02m"; "running" while it runs, "-" before it starts. */
function durationText(run: Run): string {
  if (!run.startedAt) return '-';
  if (!run.endedAt) return 'running';
  const seconds = Math.max(0, Math.round((Date.parse(run.endedAt) - Date.parse(run.startedAt)) / 1000));
  if (seconds < 60) return `${seconds}s`;
  const pad = (value: number) => String(value).padStart(2, '0');
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ${pad(seconds % 60)}s`;
  return `${Math.floor(seconds / 3600)}h ${pad(Math.floor((seconds % 3600) / 60))}m`;
}

const APPROVAL_COLUMNS: TextColumn[] = [
  { heading: 'ID', max: 40 },
  { heading: 'KIND', max: 8 },
  { heading: 'SINCE', max: 19 },
  { heading: 'AGENT', max: 24 },
  { heading: 'SPACE', max: 24 },
  { heading: 'WHAT', max: 60 },
  { heading: 'WHY', max: 120 },
];
const RUN_COLUMNS: TextColumn[] = [
  { heading: 'RUN', max: 40 },
  { heading: 'AGENT', max: 24 },
  { heading: 'MODE', max: 12 },
  { heading: 'PLAN STEP', max: 30 },
  { heading: 'STATE', max: 16 },
  { heading: 'DURATION', max: 10, right: true },
  { heading: 'COST', max: 12, right: true },
  { heading: 'TOKENS', max: 12, right: true },
  { heading: 'CREATED', max: 19 },
];
/** The one line that says what an approval is about: its command, goal or action, else its title. */
export function summaryOf(approval: Approval): string {
  for (const key of ['summary', 'command', 'goal', 'action']) {
    const value = approval.request[key];
    if (typeof value === 'string' && value.trim()) return value;
  }
  return approval.title;
}

/**
 * The terminal's operator commands (POL-7, PLAN-3/7/8, HAR-6): `approvals`, `plans` and
 * `runs`, each listing by default with `--json` for scripts, and the decisions the web app offers.
 * They use the same HTTP API as the web app, with the operator token of the data directory.
 */
export function registerOperatorCommands(program: Command, context: OperatorCommandContext): void {
  const withWorkspace = async (options: { workspace?: string }) => {
    const api = await context.client();
    const workspace = await context.resolveWorkspace(api, options.workspace);
    return { api, base: `/api/workspaces/${workspace.id}` };
  };

  const approvals = program.command('approvals').description('pending approvals and open questions, and decide them');
  approvals
    .command('list', { isDefault: true })
    .description('list pending approvals and open questions')
    .option('-w, --workspace <idOrName>', 'workspace (default: the only one)')
    .option('--json', 'print JSON ({approvals, questions})')
    .action(async (options: { workspace?: string; json?: boolean }) => {
      const { api, base } = await withWorkspace(options);
      const pending = (await api.request<{ approvals: Approval[] }>('GET', `${base}/approvals?status=pending`)).approvals;
      const open = (await api.request<{ questions: Question[] }>('GET', `${base}/questions`)).questions.filter((question) => question.status === 'pending');
      if (options.json) return json({ approvals: pending, questions: open });
      if (pending.length === 0 && open.length === 0) return out('Nothing waiting for a decision.');
      const [agents, spaces] = await Promise.all([namesOf(api, `${base}/agents`, 'agents'), namesOf(api, `${base}/spaces`, 'spaces')]);
      // A question names its run, not its space: one look-up per asking run (questions are few).
      const questionSpaces = new Map<string, string | null>();
      for (const question of open) {
        if (!questionSpaces.has(question.runId)) questionSpaces.set(question.runId, (await api.request<{ run: Run }>('GET', `${base}/runs/${encodeURIComponent(question.runId)}`)).run.spaceId);
      }
      const rows = [
        ...pending.map((approval) => [approval.id, 'approval', time(approval.createdAt), nameIn(agents, approval.agentId), nameIn(spaces, approval.spaceId), summaryOf(approval), approvalReasonText(approval)]),
        ...open.map((question) => [question.id, 'question', time(question.createdAt), nameIn(agents, question.agentId), nameIn(spaces, questionSpaces.get(question.runId) ?? null), question.questions.map((item) => item.question).join(' / '), 'the agent asks you and waits for the answer']),
      ];
      for (const line of textTable(APPROVAL_COLUMNS, rows)) out(line);
    });
  approvals
    .command('approve <approvalId>')
    .description('approve a pending approval: the agent goes ahead with the action')
    .option('-w, --workspace <idOrName>', 'workspace (default: the only one)')
    .option('--remember', 'remember this choice for the same action (a workspace rule)')
    .option('--json', 'print the decided approval as JSON')
    .action(async (approvalId: string, options: { workspace?: string; remember?: boolean; json?: boolean }) => {
      const { api, base } = await withWorkspace(options);
      const decided = await api.request<Approval>('POST', `${base}/approvals/${encodeURIComponent(approvalId)}/decision`, { decision: 'approve', ...(options.remember ? { remember: true } : {}) });
      if (options.json) json(decided);
      else out(`approved ${decided.id}`);
    });
  approvals
    .command('reject <approvalId>')
    .description('reject a pending approval: the agent is told no (and your reason) and does not do it')
    .option('-w, --workspace <idOrName>', 'workspace (default: the only one)')
    .option('--reason <text>', 'told to the agent verbatim')
    .option('--json', 'print the decided approval as JSON')
    .action(async (approvalId: string, options: { workspace?: string; reason?: string; json?: boolean }) => {
      const { api, base } = await withWorkspace(options);
      const decided = await api.request<Approval>('POST', `${base}/approvals/${encodeURIComponent(approvalId)}/decision`, { decision: 'reject', ...(options.reason ? { reason: options.reason } : {}) });
      if (options.json) json(decided);
      else out(`rejected ${decided.id}`);
    });
  approvals
    .command('answer <questionId> <answers...>')
    .description('answer an ask_user question (one answer per question asked)')
    .option('-w, --workspace <idOrName>', 'workspace (default: the only one)')
    .option('--json', 'print the answered question as JSON')
    .action(async (questionId: string, answers: string[], options: { workspace?: string; json?: boolean }) => {
      const { api, base } = await withWorkspace(options);
      const answered = await api.request<Question>('POST', `${base}/questions/${encodeURIComponent(questionId)}/answer`, { answers });
      if (options.json) json(answered);
      else out(`answered ${answered.id}`);
    });

  const plans = program.command('plans').description('plans: list, show, approve, reject, stop, resume');
  plans
    .command('list', { isDefault: true })
    .option('-w, --workspace <idOrName>', 'workspace (default: the only one)')
    .option('-c, --conversation <id>', 'only the plans of one conversation')
    .option('--json', 'print JSON')
    .action(async (options: { workspace?: string; conversation?: string; json?: boolean }) => {
      const { api, base } = await withWorkspace(options);
      const list = (await api.request<{ plans: Plan[] }>('GET', `${base}/plans${options.conversation ? `?conversationId=${encodeURIComponent(options.conversation)}` : ''}`)).plans;
      if (options.json) return json(list);
      if (list.length === 0) return out('No plans.');
      for (const plan of list) {
        out(`${plan.id}  ${cell(plan.status, 10)} ${String(plan.progress.settled).padStart(2)}/${String(plan.progress.total).padEnd(2)} steps  ${cell(planCostText(plan), 66)} ${cell(plan.goal, 70)}`);
      }
    });
  plans
    .command('show <planId>')
    .option('-w, --workspace <idOrName>', 'workspace (default: the only one)')
    .option('--json', 'print JSON')
    .action(async (planId: string, options: { workspace?: string; json?: boolean }) => {
      const { api, base } = await withWorkspace(options);
      const plan = await api.request<Plan>('GET', `${base}/plans/${encodeURIComponent(planId)}`);
      if (options.json) return json(plan);
      out(`${plan.id}  ${plan.status}  ${plan.progress.settled}/${plan.progress.total} settled  ${planCostText(plan)}`);
      if (plan.costEstimate.frozenAt) out(`estimate frozen at approval, ${time(plan.costEstimate.frozenAt)}`);
      out(`goal: ${cell(plan.goal, 200).trimEnd()}`);
      for (const error of plan.errors) out(`error: ${cell(error.message, 200).trimEnd()}`);
      for (const node of plan.nodes) out(`  ${cell(node.key, 16)} ${cell(node.state, 10)} ${cell(node.title, 60).trimEnd()}${node.dependsOn.length ? `  (after ${node.dependsOn.join(', ')})` : ''}`);
    });
  const planAction = (name: string, path: string, describe: string, body?: (options: { reason?: string }) => unknown) =>
    plans
      .command(`${name} <planId>`)
      .description(describe)
      .option('-w, --workspace <idOrName>', 'workspace (default: the only one)')
      .option('--json', 'print the plan as JSON')
      .action(async (planId: string, options: { workspace?: string; json?: boolean; reason?: string }) => {
        const { api, base } = await withWorkspace(options);
        const plan = await api.request<Plan>('POST', `${base}/plans/${encodeURIComponent(planId)}/${path}`, body?.(options));
        if (options.json) json(plan);
        else out(`${plan.id}  ${plan.status}  ${plan.progress.settled}/${plan.progress.total} settled`);
      });
  planAction('approve', 'approve', 'approve a proposed plan and run it');
  planAction('reject', 'reject', 'reject a proposed plan', (options) => (options.reason ? { reason: options.reason } : {})).option('--reason <text>', 'what should change');
  planAction('stop', 'cancel', 'stop an executing plan: running steps are cancelled, the rest never start');
  planAction('resume', 'resume', 'run the stopped, failed and blocked steps of a stopped or failed plan again');

  program
    .command('runs')
    .description('runs with their state, duration and cost')
    .option('-w, --workspace <idOrName>', 'workspace (default: the only one)')
    .option('-c, --conversation <id>', 'only the runs of one conversation')
    .option('--limit <n>', 'at most this many (newest first)', '50')
    .option('--json', 'print JSON')
    .action(async (options: { workspace?: string; conversation?: string; limit: string; json?: boolean }) => {
      const { api, base } = await withWorkspace(options);
      const query = new URLSearchParams({ limit: options.limit, ...(options.conversation ? { conversationId: options.conversation } : {}) });
      const list = (await api.request<{ runs: Run[] }>('GET', `${base}/runs?${query.toString()}`)).runs;
      if (options.json) return json(list);
      if (list.length === 0) return out('No runs.');
      const [agents, plans] = await Promise.all([namesOf(api, `${base}/agents`, 'agents'), api.request<{ plans: Plan[] }>('GET', `${base}/plans`)]);
      const stepOfRun = new Map(plans.plans.flatMap((plan) => plan.nodes.filter((node) => node.runId).map((node) => [node.runId!, node.title] as const)));
      const tokensOf = (run: Run) => run.usage.inputTokens + run.usage.outputTokens;
      const rows = list.map((run) => [
        run.id,
        nameIn(agents, run.agentId),
        run.mode ?? '-',
        stepOfRun.get(run.id) ?? '-',
        runStateWord(run.state),
        durationText(run),
        dollars(run.costUsd),
        String(tokensOf(run)),
        time(run.createdAt),
      ]);
      for (const line of textTable(RUN_COLUMNS, rows)) out(line);
      const cost = list.reduce((sum, run) => sum + run.costUsd, 0);
      const tokens = list.reduce((sum, run) => sum + tokensOf(run), 0);
      out(`total: ${list.length} ${list.length === 1 ? 'run' : 'runs'}, ${dollars(cost)}, ${tokens} tokens`);
    });
}
