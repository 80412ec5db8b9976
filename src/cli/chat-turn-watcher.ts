import type { Approval } from '../schemas/approval.js';
import { compactionHeadline } from '../services/runs/compaction-line.js';
import type { WorkspaceEvent } from '../schemas/events.js';
import type { Question } from '../schemas/question.js';
import type { Run, RunState } from '../schemas/run.js';
import type { ApiClient } from './api-client.js';
import type { ChatOutput } from './chat-output.js';
import { summaryOf } from './operator-commands.js';
import { excerpt, printable } from './terminal-text.js';

/** Asks the person at the terminal; null when the prompt was withdrawn (decided elsewhere, Ctrl-C). */
export interface ChatPrompter {
  ask(question: string, signal: AbortSignal): Promise<string | null>;
}

export interface ChatTurnWatcherOptions {
  api: ApiClient;
  /** `/api/workspaces/<id>` */
  base: string;
  conversationId: string;
  output: ChatOutput;
  /** `--json`: every event of the turn as one JSON line, nothing else on stdout. */
  json: boolean;
  /** Set when stdin is a terminal (and not `--json`): approvals and questions are decided inline. */
  prompter: ChatPrompter | null;
}

const ENDED: ReadonlySet<RunState> = new Set(['completed', 'failed', 'cancelled']);
/** The input keys that say most about a call, in order; otherwise the input's compact JSON. */
const TELLING_KEYS = ['command', 'file_path', 'path', 'pattern', 'url', 'query', 'description', 'prompt', 'goal'];

/** A tool call's input in one short line. */
export function shortInput(input: unknown): string {
  if (input && typeof input === 'object') {
    for (const key of TELLING_KEYS) {
      const value = (input as Record<string, unknown>)[key];
      if (typeof value === 'string' && value.trim()) return excerpt(value, 100);
    }
  }
  return excerpt(JSON.stringify(input ?? {}), 100);
}

/**
 * Follows one turn of `control-center chat` through the workspace's live events (HAR-6,
 * POL-7, PLAN-4): the assistant's text as it streams, each tool call with its short input and its
 * result's status, subagent runs, and the approvals and questions the turn raises — asked at the
 * terminal when there is one, else printed with their ids and the `control-center approvals` line
 * that decides them. Resolves `ended` with the turn's last state.
 */
export class ChatTurnWatcher {
  /** The turn and every run it started (subagents, delegates): their events belong to this turn. */
  private readonly runIds = new Set<string>();
  private topRunId: string | null = null;
  private readonly early: WorkspaceEvent[] = [];
  private textSinceModelCall = false;
  private activeTool: string | null = null;
  /** Approvals and questions of this turn still waiting, each with the controller that withdraws its prompt. */
  private readonly waiting = new Map<string, { label: string; withdraw: AbortController }>();
  /** Prompts are asked one at a time, in the order they arrived. */
  private prompts: Promise<void> = Promise.resolve();
  private finish!: (run: Run) => void;
  readonly ended = new Promise<Run>((resolve) => {
    this.finish = resolve;
  });
  private endedRun: Run | null = null;

  constructor(private readonly options: ChatTurnWatcherOptions) {}

  /** What the progress line says the turn waits for, or null once it ended. */
  waitingFor(): string | null {
    if (this.endedRun) return null;
    const first = this.waiting.values().next();
    if (!first.done) return `waiting for ${first.value.label}`;
    if (!this.topRunId) return 'starting the turn';
    if (this.activeTool) return `running ${this.activeTool}`;
    return 'waiting for the agent';
  }

  /** Every event of the workspace, in order; the ones before {@link start} are held until it. */
  accept(event: WorkspaceEvent): void {
    if (this.topRunId === null) this.early.push(event);
    else this.handle(event);
  }

  /** The turn's run is known (the post answered): replay what arrived meanwhile, then follow live. */
  start(run: Run): void {
    this.topRunId = run.id;
    this.runIds.add(run.id);
    for (const event of this.early.splice(0)) this.handle(event);
    if (ENDED.has(run.state)) this.end(run);
  }

  get runId(): string | null {
    return this.topRunId;
  }

  private ours(event: WorkspaceEvent): boolean {
    switch (event.type) {
      case 'run.created':
        if (event.data.parentRunId && this.runIds.has(event.data.parentRunId)) this.runIds.add(event.data.id);
        return this.runIds.has(event.data.id);
      case 'run.updated':
        return this.runIds.has(event.data.id);
      case 'run.event':
      case 'run.paused':
      case 'run.resumed':
      case 'run.steered':
        return this.runIds.has(event.data.runId);
      case 'approval.requested':
      case 'approval.decided':
        return event.data.conversationId === this.options.conversationId || (event.data.runId !== null && this.runIds.has(event.data.runId));
      case 'question.asked':
      case 'question.answered':
      case 'question.expired':
      case 'question.cancelled':
        return event.data.conversationId === this.options.conversationId || this.runIds.has(event.data.runId);
      case 'plan.submitted':
        return event.data.conversationId === this.options.conversationId;
      default:
        return false;
    }
  }

  private handle(event: WorkspaceEvent): void {
    if (this.endedRun || !this.ours(event)) return;
    if (this.options.json) this.options.output.text(`${JSON.stringify(event)}\n`);
    else this.render(event);
    if (event.type === 'approval.requested' && event.data.status === 'pending') this.approvalRequested(event.data);
    if (event.type === 'question.asked' && event.data.status === 'pending') this.questionAsked(event.data);
    if (event.type === 'approval.decided' || event.type === 'question.answered' || event.type === 'question.expired' || event.type === 'question.cancelled') this.settled(event.data.id);
    if (event.type === 'run.updated' && event.data.id === this.topRunId && ENDED.has(event.data.state)) this.end(event.data);
  }

  private end(run: Run): void {
    this.endedRun = run;
    for (const entry of this.waiting.values()) entry.withdraw.abort();
    this.waiting.clear();
    this.finish(run);
  }

  /** The human-readable transcript of one event of this turn. */
  private render(event: WorkspaceEvent): void {
    const out = this.options.output;
    const sub = (runId: string) => (runId === this.topRunId ? '' : '  │ ');
    switch (event.type) {
      case 'run.created':
        if (event.data.id !== this.topRunId) out.line(`  ↳ started ${event.data.id} (subagent run)`);
        return;
      case 'run.paused':
        return out.note('paused');
      case 'run.resumed':
        return out.note('resumed');
      case 'run.event': {
        const { runId } = event.data;
        const agentEvent = event.data.event;
        switch (agentEvent.type) {
          case 'model_call_start':
            if (runId === this.topRunId) this.textSinceModelCall = false;
            return;
          case 'text_delta':
            if (runId !== this.topRunId) return;
            this.textSinceModelCall = true;
            return out.text(printable(agentEvent.text, { keepNewlines: true }));
          case 'assistant_message': {
            // Transports that send whole messages (no deltas) still show their text.
            if (runId !== this.topRunId || this.textSinceModelCall) return;
            const text = agentEvent.message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
            if (text) out.text(printable(text, { keepNewlines: true }));
            return;
          }
          case 'tool_call_start':
            this.activeTool = printable(agentEvent.call.name);
            return out.line(`${sub(runId)}● ${excerpt(agentEvent.call.name, 60)}  ${shortInput(agentEvent.call.input)}`);
          case 'tool_call_end': {
            this.activeTool = null;
            const status = !agentEvent.executed ? 'not run' : agentEvent.result.isError ? 'error' : 'ok';
            const detail = agentEvent.result.isError || !agentEvent.executed ? `: ${excerpt(agentEvent.result.content, 160)}` : '';
            return out.line(`${sub(runId)}  ⎿ ${status}${detail}`);
          }
          case 'steering_injected':
            return out.line(`${sub(runId)}  (steered: ${excerpt(agentEvent.text, 100)})`);
          case 'protocol_error':
            return out.note(`warning: ${excerpt(agentEvent.message, 200)}`);
          case 'plan_ready':
            return out.line('Plan ready for review.');
          case 'context_compacted':
            // CTX-2: the summary line with its cost as the run recorded it, then the summary itself.
            out.line(`${sub(runId)}${printable(compactionHeadline(agentEvent))}`);
            return out.line(`${sub(runId)}  ${excerpt(agentEvent.summary, 2_000)}`);
          default:
            return;
        }
      }
      case 'approval.decided':
        if (this.waiting.has(event.data.id)) out.line(`  ⎿ ${event.data.id} ${event.data.status}${event.data.reason ? `: ${excerpt(event.data.reason, 120)}` : ''}`);
        return;
      case 'question.answered':
      case 'question.expired':
      case 'question.cancelled':
        if (this.waiting.has(event.data.id)) out.line(`  ⎿ ${event.data.id} ${event.data.status}`);
        return;
      case 'plan.submitted':
        out.line(`Plan ${event.data.id} proposed: ${excerpt(event.data.goal, 120)}`);
        out.note(`  review it: control-center plans show ${event.data.id}   approve: control-center plans approve ${event.data.id}`);
        return;
      default:
        return;
    }
  }

  private approvalRequested(approval: Approval): void {
    const withdraw = new AbortController();
    this.waiting.set(approval.id, { label: `approval ${approval.id}`, withdraw });
    if (this.options.json) return;
    const out = this.options.output;
    out.line(`? approval ${approval.id}: ${excerpt(approval.title, 100)} — ${excerpt(summaryOf(approval), 160)}`);
    const prompter = this.options.prompter;
    if (!prompter) {
      out.note(`  decide: control-center approvals approve ${approval.id}   (or: control-center approvals reject ${approval.id} --reason "…")`);
      return;
    }
    this.enqueue(async () => {
      for (;;) {
        const answer = await prompter.ask('  Approve? [y]es / [n]o / [a]lways (remember): ', withdraw.signal);
        if (answer === null) return;
        const choice = answer.trim().toLowerCase();
        if (!['y', 'yes', 'n', 'no', 'a', 'always'].includes(choice)) continue;
        const approve = choice !== 'n' && choice !== 'no';
        let reason: string | null = null;
        if (!approve) reason = await prompter.ask('  Reason for the agent (Enter for none): ', withdraw.signal);
        await this.decide(`/approvals/${encodeURIComponent(approval.id)}/decision`, {
          decision: approve ? 'approve' : 'reject',
          ...(choice.startsWith('a') ? { remember: true } : {}),
          ...(reason?.trim() ? { reason: reason.trim() } : {}),
        });
        return;
      }
    });
  }

  private questionAsked(question: Question): void {
    const withdraw = new AbortController();
    this.waiting.set(question.id, { label: `an answer to ${question.id}`, withdraw });
    if (this.options.json) return;
    const out = this.options.output;
    out.line(`? question ${question.id}:`);
    for (const item of question.questions) {
      out.line(`  ${excerpt(item.question, 200)}`);
      item.options?.forEach((option, index) => out.line(`    ${index + 1}) ${excerpt(option, 120)}`));
    }
    const prompter = this.options.prompter;
    if (!prompter) {
      out.note(`  answer: control-center approvals answer ${question.id} "<answer>"${question.questions.length > 1 ? ' "<answer>"…' : ''}`);
      return;
    }
    this.enqueue(async () => {
      const answers: string[] = [];
      for (const item of question.questions) {
        const typed = await prompter.ask(`  ${excerpt(item.question, 60)} > `, withdraw.signal);
        if (typed === null) return;
        const picked = /^\d+$/.test(typed.trim()) ? item.options?.[Number(typed.trim()) - 1] : undefined;
        answers.push(picked ?? typed.trim());
      }
      await this.decide(`/questions/${encodeURIComponent(question.id)}/answer`, { answers });
    });
  }

  private settled(id: string): void {
    const entry = this.waiting.get(id);
    if (!entry) return;
    entry.withdraw.abort();
    this.waiting.delete(id);
  }

  private enqueue(prompt: () => Promise<void>): void {
    this.prompts = this.prompts.then(prompt).catch((error: unknown) => {
      this.options.output.note(`error: ${error instanceof Error ? error.message : String(error)}`);
    });
  }

  /** A decision through the API; a refusal (say, decided elsewhere first: 409) is printed, not fatal. */
  private async decide(path: string, body: unknown): Promise<void> {
    await this.options.api.request('POST', `${this.options.base}${path}`, body);
  }
}
