import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTONOMY_LEVELS, MODES } from '../../src/core/modes.js';
import { getCapabilityProfile } from '../../src/core/capability-profiles.js';
import { callEffects, validateToolDescriptor } from '../../src/core/tool-descriptor.js';
import { buildToolSurface } from '../../src/core/tool-surface.js';
import { toolDescriptors } from '../../src/tools/builtin-tools.js';
import type { Tool } from '../../src/tools/define-tool.js';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { reply } from '../support/scripted-reply.js';
import { waitFor } from '../support/wait-for.js';

// SEC-9: the effect classes of product tools are facts. Every product tool on every surface is named
// here with what it changes; the declaration must match, and for the tools that reach beyond the
// calling conversation the change is observed on a real server, not taken from this table.
// Surfaces: the built-in harness's (per mode, dial and conversation) is walked below; the MCP
// endpoint serves an external run the same Tool objects of its prepared surface (minus the built-ins
// the runner has natively), and relay runners reach product tools only through it — so every tool
// they can call is one this walk declares (started-work-inherits-rules.test.ts calls one over /mcp).

/** What a call can change, beyond the calling run's own log and its own conversation's messages. */
type Reach =
  | 'nothing' // reads, or keeps state in the run's memory only
  | 'network' // reads the web (networkEgress, TOOL-1); changes nothing of the Control Center or the worktree
  | 'worktree' // files of the conversation's checkout (and, for a shell, anything a command does)
  | 'ownRecords' // Control Center records of this conversation or review: plans, findings, tickets, questions to the operator
  | 'ownRunTree' // starts child runs in this space and conversation tree, under this run's surface and rules
  | 'elsewhere'; // spaces, conversations, other conversations' turns, runs, questions, archive marks

/** Every product tool, per action where the action decides what it changes. A tool missing here fails the test. */
const REACH: Record<string, Reach | Record<string, Reach>> = {
  read: 'nothing',
  list: 'nothing',
  glob: 'nothing',
  grep: 'nothing',
  web_fetch: 'network',
  web_search: 'network',
  todo: 'nothing',
  ask_user: 'ownRecords',
  skill: 'nothing',
  write: 'worktree',
  edit: 'worktree',
  bash: 'worktree',
  task: 'ownRunTree',
  relay_tool: { list: 'nothing', send: 'elsewhere', create_session: 'elsewhere', answer_question: 'elsewhere', stop: 'elsewhere', archive: 'elsewhere' },
  // A delegate is another agent, whose own agent-scope rules are not this run's: declared like work elsewhere.
  delegate_task: 'elsewhere',
  submit_plan: 'ownRecords',
  exit_plan_mode: 'ownRecords',
  propose_orchestration: 'ownRecords',
  add_review_node: 'ownRecords',
  list_review_nodes: 'nothing',
  confirm_review_node: 'ownRecords',
  dismiss_review_node: 'ownRecords',
  resolve_review_node: 'ownRecords',
  assess_review_axis: 'ownRecords',
  // The verdict and the review's own tickets only (a foreign ticketId is refused), and no runs: the
  // events these calls cause (review.finalized, ticket.done) fire no pipeline trigger when an agent's
  // tool call caused them (review-tool-triggers.test.ts), so they need no startsRuns.
  finalize_review: 'ownRecords',
  create_ticket: 'ownRecords',
  update_ticket: 'ownRecords',
  comment_ticket: 'ownRecords',
  send_message: 'ownRecords',
};

function reachOf(tool: Tool, action: string | undefined): Reach {
  const entry = REACH[tool.name];
  if (entry === undefined) throw new Error(`${tool.name} is a product tool with no entry in REACH: say what it changes (SEC-9)`);
  if (typeof entry === 'string') return entry;
  const reach = action === undefined ? undefined : entry[action];
  if (reach === undefined) throw new Error(`${tool.name} action ${String(action)} has no entry in REACH`);
  return reach;
}

/** The actions a tool's declaration distinguishes (one undefined action for a tool without any). */
function actionsOf(tool: Tool): Array<string | undefined> {
  return tool.effectsByAction ? Object.keys(tool.effectsByAction.classes) : [undefined];
}

function inputFor(tool: Tool, action: string | undefined): Record<string, unknown> {
  return action === undefined || !tool.effectsByAction ? {} : { [tool.effectsByAction.field]: action };
}

/** The declaration a reach requires. */
function checkDeclaration(tool: Tool, action: string | undefined, reach: Reach): string[] {
  const problems: string[] = [];
  const label = action ? `${tool.name} ${action}` : tool.name;
  const classes = callEffects(tool, inputFor(tool, action));
  if (reach === 'elsewhere' && !classes.includes('workspaceMutation')) problems.push(`${label} changes the workspace beyond its conversation but declares ${JSON.stringify(classes)}`);
  if ((reach === 'elsewhere' || reach === 'ownRunTree') && tool.name !== 'relay_tool' && !tool.startsRuns) problems.push(`${label} starts runs but does not declare startsRuns`);
  if (reach === 'worktree' && !tool.writesWorktree) problems.push(`${label} writes the worktree but does not declare writesWorktree`);
  // startsRuns is the tool's, not an action's: relay_tool's `list` shares it with `send`.
  if (reach === 'network' && (classes.join() !== 'networkEgress' || tool.writesWorktree || tool.startsRuns)) problems.push(`${label} reads the web but declares ${JSON.stringify(classes)}`);
  if (reach === 'nothing' && (classes.length > 0 || tool.writesWorktree || (tool.startsRuns && !tool.effectsByAction))) problems.push(`${label} changes nothing but declares effects`);
  if (reach === 'ownRecords' && classes.includes('workspaceMutation')) problems.push(`${label} writes only its own records but declares workspaceMutation`);
  return problems;
}

describe('every product tool on every surface declares what it changes (SEC-9)', () => {
  let fixture: HarnessFixture;
  beforeAll(async () => {
    fixture = await startHarnessFixture();
  });
  afterAll(async () => fixture?.dispose());

  it('each mode × autonomy × (in a conversation or not), every tool and every action: listed, valid, declared as it reaches', () => {
    const executor = fixture.server.running.app.executor;
    const problems: string[] = [];
    const seen = new Set<string>();
    for (const mode of MODES) {
      for (const autonomy of AUTONOMY_LEVELS) {
        for (const inConversation of [true, false]) {
          const tools = executor.productToolsFor({ mode, autonomy, inConversation, linkedSkills: ['code-review'] });
          const surfaced = new Set(buildToolSurface(getCapabilityProfile(mode), toolDescriptors(tools)).map((tool) => tool.name));
          for (const tool of tools) {
            seen.add(tool.name);
            problems.push(...validateToolDescriptor(tool).map((problem) => `${mode}/${autonomy}: ${problem}`));
            for (const action of actionsOf(tool)) {
              try {
                problems.push(...checkDeclaration(tool, action, reachOf(tool, action)).map((problem) => `${mode}/${autonomy}${surfaced.has(tool.name) ? ' (surfaced)' : ''}: ${problem}`));
              } catch (error) {
                problems.push(String(error));
              }
            }
          }
        }
      }
    }
    expect([...new Set(problems)]).toEqual([]);
    // The walk met every tool the table names: a tool that no longer exists is not silently kept.
    expect(Object.keys(REACH).filter((name) => !seen.has(name))).toEqual([]);
  });
});

/** A snapshot of what exists in the workspace, to see what one call changed. */
interface Store {
  spaces: Set<string>;
  conversations: Set<string>;
  runs: Map<string, { conversationId: string | null; parentRunId: string | null; state: string }>;
  messages: Map<string, number>;
  archives: Set<string>;
  questions: Map<string, string>;
}

describe('what relay_tool, task and delegate_task change, observed on a real server, matches their declarations (SEC-9)', () => {
  let fixture: HarnessFixture;
  const api = (method: string, path: string, body?: unknown) => fixture.server.api(method, `/api/workspaces/${fixture.workspaceId}${path}`, body);

  async function snapshot(): Promise<Store> {
    const spaces = (await api('GET', '/spaces')).body.spaces as any[];
    const conversations: string[] = [];
    for (const space of spaces) conversations.push(...((await api('GET', `/spaces/${space.id}/conversations`)).body.conversations as any[]).map((conversation) => conversation.id));
    const messages = new Map<string, number>();
    for (const id of conversations) messages.set(id, ((await api('GET', `/conversations/${id}/messages`)).body.messages as any[]).length);
    const runs = new Map(((await api('GET', '/runs?limit=500')).body.runs as any[]).map((run) => [run.id, { conversationId: run.conversationId, parentRunId: run.parentRunId, state: run.state }]));
    const db = (await fixture.server.running.app.workspaces.handle(fixture.workspaceId)).database.db;
    const archives = new Set((await db.selectFrom('conversation_archives').select('conversation_id').execute()).map((row) => row.conversation_id));
    const questions = new Map(((await api('GET', '/questions')).body.questions as any[]).map((question) => [question.id, question.status]));
    return { spaces: new Set(spaces.map((space) => space.id)), conversations: new Set(conversations), runs, messages, archives, questions };
  }

  /** What changed outside the calling conversation, and which runs were started. */
  function changed(before: Store, after: Store, callerConversation: string, callerRun: string) {
    const elsewhere: string[] = [];
    const startedRuns: string[] = [];
    for (const id of after.spaces) if (!before.spaces.has(id)) elsewhere.push(`space ${id}`);
    for (const id of after.conversations) if (!before.conversations.has(id)) elsewhere.push(`conversation ${id}`);
    for (const [id, count] of after.messages) if (id !== callerConversation && count !== (before.messages.get(id) ?? 0)) elsewhere.push(`messages in ${id}`);
    for (const id of after.archives) if (!before.archives.has(id)) elsewhere.push(`archived ${id}`);
    for (const id of new Set([...before.questions.keys(), ...after.questions.keys()])) {
      if (before.questions.get(id) !== after.questions.get(id)) elsewhere.push(`question ${id} ${after.questions.get(id) ?? 'no longer listed'}`);
    }
    for (const [id, run] of after.runs) {
      const earlier = before.runs.get(id);
      if (id === callerRun) continue;
      if (!earlier) startedRuns.push(id);
      const inCallerTree = run.conversationId === callerConversation;
      if (!inCallerTree && (!earlier || earlier.state !== run.state)) elsewhere.push(`run ${id} ${run.state}`);
    }
    return { elsewhere, startedRuns };
  }

  beforeAll(async () => {
    fixture = await startHarnessFixture();
  });
  afterAll(async () => fixture?.dispose());

  async function quiet(): Promise<void> {
    await waitFor(async () => fixture.server.running.app.activeRuns.inWorkspace(fixture.workspaceId).length, (count) => count === 0, 'every run to end', 20_000);
  }

  async function other(name: string): Promise<string> {
    const space = await api('POST', '/spaces', { name });
    return (await api('POST', `/spaces/${space.body.id}/conversations`, { title: name })).body.id as string;
  }

  /** Calls one tool in its own turn and returns what it changed. */
  async function observe(tool: string, input: Record<string, unknown>): Promise<{ elsewhere: string[]; startedRuns: string[]; isError: boolean }> {
    const before = await snapshot();
    const callerRequests = fixture.model.requests.length;
    fixture.model.script(reply().tool(tool, input), reply().text('done'));
    const runId = await fixture.send(`call ${tool}`);
    const detail = await fixture.waitForRun(runId, 20_000);
    // The runs a call started (a relayed turn, a subagent, an answered turn going on) end before the count.
    await quiet();
    const after = await snapshot();
    const call = detail.toolCalls.find((entry: any) => entry.name === tool);
    expect(fixture.model.requests.length).toBeGreaterThan(callerRequests);
    return { ...changed(before, after, fixture.conversationId, runId), isError: call?.isError === true };
  }

  function declaresFor(tool: string, input: Record<string, unknown>) {
    const executor = fixture.server.running.app.executor;
    const found = executor.productToolsFor({ mode: 'chat', autonomy: 'actWithApproval', inConversation: true, linkedSkills: [] }).find((entry) => entry.name === tool)!;
    return { classes: callEffects(found, input), startsRuns: found.startsRuns === true, reach: reachOf(found, typeof input.action === 'string' ? input.action : undefined) };
  }

  it('each call that changes something beyond its conversation declares workspaceMutation, each that starts a run declares startsRuns', async () => {
    const target = await other('Target');
    const toArchive = await other('To archive');
    const asking = await other('Asking');
    const busy = await other('Busy');
    fixture.model.scriptFor((request) => request.lastUserText === 'observed message', reply().text('received'));
    fixture.model.scriptFor((request) => request.lastUserText === 'observed first message', reply().text('received'));
    fixture.model.scriptFor((request) => request.lastUserText?.includes('[observed child]') === true, reply().text('child report'));
    fixture.model.scriptFor((request) => request.lastUserText?.includes('[observed delegate]') === true, reply().text('delegate report'));
    const colleague = Object.values(fixture.agents).find((agent) => agent.name !== 'ceo')!;

    const calls: Array<{ tool: string; input: Record<string, unknown>; before?: () => Promise<void> }> = [
      { tool: 'relay_tool', input: { action: 'list' } },
      { tool: 'relay_tool', input: { action: 'send', conversationId: target, text: 'observed message' } },
      { tool: 'relay_tool', input: { action: 'create_session', title: 'Observed', text: 'observed first message' } },
      { tool: 'relay_tool', input: { action: 'create_session', title: 'Observed empty' } },
      { tool: 'relay_tool', input: { action: 'archive', conversationId: toArchive } },
      { tool: 'task', input: { description: 'look', prompt: '[observed child] look around' } },
      { tool: 'delegate_task', input: { agent: colleague.name, task: '[observed delegate] look around' } },
    ];
    // answer_question: the Asking conversation's agent waits on a question card.
    fixture.model.scriptFor((request) => request.allText.includes('which database?'), reply().tool('ask_user', { questions: [{ question: 'SQLite or PostgreSQL?', options: ['SQLite', 'PostgreSQL'] }] }), reply().text('going with it'));
    // stop: the Busy conversation's turn hangs until stopped.
    fixture.model.scriptFor((request) => request.lastUserText === 'keep busy', reply().text('busy…').hang());

    const observations: string[] = [];
    const check = async (tool: string, input: Record<string, unknown>) => {
      const seen = await observe(tool, input);
      const declared = declaresFor(tool, input);
      const label = `${tool} ${JSON.stringify(input)}`;
      expect(seen.isError, `${label} failed`).toBe(false);
      if (seen.elsewhere.length > 0 && !declared.classes.includes('workspaceMutation')) observations.push(`${label} changed ${seen.elsewhere.join(', ')} but declares ${JSON.stringify(declared.classes)}`);
      if (seen.startedRuns.length > 0 && !declared.startsRuns) observations.push(`${label} started ${seen.startedRuns.join(', ')} but does not declare startsRuns`);
      // The table above is checked against what happened, not only against the declaration.
      const observedReach = seen.elsewhere.length > 0 ? 'elsewhere' : seen.startedRuns.length > 0 ? 'ownRunTree' : 'nothing';
      if (declared.reach !== observedReach && !(declared.reach === 'elsewhere' && tool === 'delegate_task' && observedReach === 'ownRunTree')) {
        observations.push(`${label}: REACH says ${declared.reach}, the store says ${observedReach} (${[...seen.elsewhere, ...seen.startedRuns].join(', ') || 'no change'})`);
      }
      return seen;
    };

    for (const call of calls) await check(call.tool, call.input);

    await api('POST', `/conversations/${asking}/messages`, { text: 'which database?' });
    const asked = await fixture.operator!.waitFor((event) => event.event === 'question.asked' && event.data.data.conversationId === asking, 10_000);
    const answered = await check('relay_tool', { action: 'answer_question', questionId: asked.data.data.id, answers: ['PostgreSQL'] });
    expect(answered.elsewhere.filter((change) => change.startsWith(`question ${asked.data.data.id} `))).toHaveLength(1);

    await api('POST', `/conversations/${busy}/messages`, { text: 'keep busy' });
    await waitFor(async () => fixture.server.running.app.activeRuns.inWorkspace(fixture.workspaceId).length, (count) => count === 1, 'the busy turn to run');
    const busyRun = fixture.server.running.app.activeRuns.inWorkspace(fixture.workspaceId)[0]!.runId;
    const before = await snapshot();
    fixture.model.script(reply().tool('relay_tool', { action: 'stop', conversationId: busy }), reply().text('done'));
    const stopTurn = await fixture.send('call relay_tool stop');
    await fixture.waitForRun(stopTurn);
    await waitFor(() => api('GET', `/runs/${busyRun}`), (response) => response.body.run?.state === 'cancelled', 'the busy turn to end cancelled');
    const stopped = changed(before, await snapshot(), fixture.conversationId, stopTurn);
    expect(stopped.elsewhere).toContain(`run ${busyRun} cancelled`);
    expect(declaresFor('relay_tool', { action: 'stop' }).classes).toContain('workspaceMutation');

    expect(observations).toEqual([]);
  });
});
