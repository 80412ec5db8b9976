import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GrokTransport, type GrokTransportOptions } from '../../../src/adapters/grok/grok-transport.js';
import { startClaudeCodeFixture, type ClaudeCodeFixture } from '../../support/claude-code-fixture.js';
import { reply } from '../../support/scripted-model-server.js';
import type { ScriptedReply } from '../../support/scripted-reply.js';

/**
 * The Grok transport (RLY-7) end to end: the real `@vibe-kit/grok-cli` as a child process in headless
 * mode, the run executor, the model proxy and the broker, with the scripted model server speaking
 * OpenAI Chat Completions (as xAI does) as the only stand-in.
 */
let fixture: ClaudeCodeFixture | null = null;

afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

async function start(options: { mode?: 'chat' | 'plan'; autonomy?: string; transport?: Partial<GrokTransportOptions> } = {}): Promise<ClaudeCodeFixture> {
  fixture = await startClaudeCodeFixture({
    ...(options.mode ? { mode: options.mode } : {}),
    ...(options.autonomy ? { autonomy: options.autonomy } : {}),
    adapter: {
      id: 'grok',
      transport: (app, dataRoot) => new GrokTransport({ hookSessions: app.hookSessions, hiddenPaths: [dataRoot], sandbox: 'none', allowUnsandboxed: true, ...options.transport }),
    },
  });
  return fixture;
}

/** In bubblewrap (SBX-1): what a read-only turn needs. */
const SANDBOXED: Partial<GrokTransportOptions> = { sandbox: 'auto', allowUnsandboxed: false };

/** A reply the scripted model holds back until `release()`: meanwhile the turn is still running. */
function heldReply(then: () => ScriptedReply): { reply: ScriptedReply; release: () => void } {
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  return {
    reply: reply(async () => {
      await held;
      return then();
    }),
    release: () => release(),
  };
}

const chatRequests = (f: ClaudeCodeFixture) => f.model.requests.filter((request) => request.path.endsWith('/chat/completions'));
const PLAN = 'Plan:\n1. Read notes.txt.\n2. Replace the greeting.\n3. Add a test.';

// Each turn starts a fresh CLI process (seconds on a loaded machine).
describe('Grok transport: one turn per relay mode (RLY-7, RLY-8)', { timeout: 120_000 }, () => {
  it('agent: the CLI writes a file with its own tool; the model is reached through the proxy with the broker’s key; no mode line', async () => {
    const f = await start();
    f.model.script(reply().tool('create_file', { path: 'agent.txt', content: 'made by grok' }), reply().text('Wrote agent.txt.'));
    const detail = await f.waitForRun(await f.send('make a file'));
    expect(detail.run.state).toBe('completed');
    expect(readFileSync(join(f.worktreePath(), 'agent.txt'), 'utf8')).toBe('made by grok');
    const requests = chatRequests(f);
    expect(requests).toHaveLength(2);
    // SEC-6: the CLI held only the run token; the broker put the real xAI key on the upstream request.
    expect(requests.every((request) => request.headers.authorization === 'Bearer scripted-xai-key')).toBe(true);
    expect(requests[0]!.lastUserText).toBe('make a file');
    expect(requests[0]!.system).toContain('Grok CLI');
    expect(requests[0]!.system).toContain(`Current working directory: ${f.worktreePath()}`);
    // CAP-7: the server's system prompt reaches the CLI and promises no checks it lacks; the product tools come over MCP.
    expect(requests[0]!.system).toContain("The Control Center's tools come from its MCP server.");
    expect(requests[0]!.system).not.toMatch(/checked by the Control Center before they run/);
    expect(requests[1]!.lastToolResult?.content).toMatch(/agent\.txt/);
    const call = detail.toolCalls.find((entry: any) => entry.name === 'create_file');
    expect(call?.input).toEqual({ path: 'agent.txt', content: 'made by grok' });
    const said = detail.events.filter((event: any) => event.type === 'assistant_message').map((event: any) => event.data.message.content.map((block: any) => block.type));
    expect(said).toEqual([['tool_call'], ['text']]);
    const messages = (await f.api('GET', `/api/workspaces/${f.workspaceId}/conversations/${f.conversationId}/messages`)).body.messages;
    expect(messages.at(-1)).toMatchObject({ role: 'assistant', content: 'Wrote agent.txt.' });
  });

  it('ask: the Ask line goes with the message; the CLI still runs its tools itself (nothing gates them)', async () => {
    const f = await start({ autonomy: 'askFirst' });
    f.model.script(reply().tool('bash', { command: 'echo asked > ask.txt' }), reply().text('Done.'));
    const detail = await f.waitForRun(await f.send('make a file'));
    expect(detail.run.state).toBe('completed');
    expect(chatRequests(f)[0]!.lastUserText).toMatch(/^\[Relay mode: Ask\] Before any action that changes files/);
    expect(chatRequests(f)[0]!.lastUserText).toMatch(/\n\nmake a file$/);
    // Honesty: the line is a request to the model; the CLI approved its own command.
    expect(readFileSync(join(f.worktreePath(), 'ask.txt'), 'utf8')).toBe('asked\n');
  });

  it('autopilot: the Autopilot line goes with the message and the command runs', async () => {
    const f = await start({ autonomy: 'actFreely' });
    f.model.script(reply().tool('bash', { command: 'echo go > auto.txt' }), reply().text('Done.'));
    const detail = await f.waitForRun(await f.send('go'));
    expect(detail.run.state).toBe('completed');
    expect(chatRequests(f)[0]!.lastUserText).toMatch(/^\[Relay mode: Autopilot\]/);
    expect(existsSync(join(f.worktreePath(), 'auto.txt'))).toBe(true);
  });

  it('plan: in bubblewrap the worktree is read-only, so the CLI’s edit and command fail and the file is unchanged; a plan-like answer shows the board', async () => {
    const f = await start({ mode: 'plan', transport: SANDBOXED });
    const notes = join(f.worktreePath(), 'notes.txt');
    mkdirSync(f.worktreePath(), { recursive: true });
    writeFileSync(notes, 'hello\n');
    f.model.script(
      reply().tool('str_replace_editor', { path: 'notes.txt', old_str: 'hello', new_str: 'changed' }),
      reply().tool('bash', { command: 'echo overwritten > notes.txt' }),
      reply().text(PLAN),
      // HAR-4: no submit_plan, so two reminders follow (their answers do not replace the board).
      reply().text('Nothing more.'),
      reply().text('Nothing more.'),
    );
    const detail = await f.waitForRun(await f.send('change the greeting'));
    expect(detail.run.sandbox).toMatch(/^bubblewrap: /);
    expect(detail.run.state).toBe('completed');
    expect(readFileSync(notes, 'utf8')).toBe('hello\n');
    const requests = chatRequests(f);
    expect(requests[0]!.lastUserText).toMatch(/^\[Relay mode: Plan\] Plan first/);
    expect(requests[1]!.lastToolResult?.content).toMatch(/read-only|EROFS|permission denied/i);
    expect(requests[2]!.lastToolResult?.content).toMatch(/read-only|EROFS|permission denied/i);
    const board = detail.events.find((event: any) => event.type === 'plan_ready');
    expect(board?.data).toMatchObject({ plan: PLAN, source: 'answer' });
  });

  it('plan: refused with the reason when no OS sandbox would keep the worktree read-only; the CLI never starts', async () => {
    const f = await start({ mode: 'plan' });
    const detail = await f.waitForRun(await f.send('plan it'));
    expect(detail.run.state).toBe('failed');
    expect(detail.run.error).toMatch(/approves its own edits.*OS sandbox/);
    expect(chatRequests(f)).toHaveLength(0);
  });
});

describe('Grok transport: the Control Center tools over MCP and the completion contract (HAR-4, RLY-7)', { timeout: 120_000 }, () => {
  it('plan: the CLI is offered the MCP tools on its first request; submit_plan through the bridge stores the plan and meets the contract', async () => {
    const f = await start({ mode: 'plan', transport: SANDBOXED });
    let offered: string[] = [];
    f.model.script(
      reply((request) => {
        offered = request.toolNames;
        return reply().tool('mcp__control-center__submit_plan', { goal: 'Ship the parser', nodes: [{ key: 'read', title: 'Read the grammar', description: 'Study it.', dependsOn: [] }] });
      }),
      reply((request) => reply().text(`Submitted: ${request.lastToolResult?.content.slice(0, 60) ?? ''}`)),
    );
    const detail = await f.waitForRun(await f.send('plan the parser'));
    expect(detail.run.state).toBe('completed');
    expect(offered).toContain('mcp__control-center__submit_plan');
    // The CLI's own tools are still there; nothing else came over MCP.
    expect(offered).toContain('bash');
    expect(offered.filter((name) => name.startsWith('mcp__') && !name.startsWith('mcp__control-center__'))).toEqual([]);
    expect(detail.run.deliverableFailed).toBe(false);
    expect(detail.events.filter((event: any) => event.type === 'output_verb_delivered').map((event: any) => event.data.toolName)).toEqual(['mcp__control-center__submit_plan']);
    expect(detail.events.some((event: any) => event.type === 'reminder_injected')).toBe(false);
    const plans = (await f.api('GET', `/api/workspaces/${f.workspaceId}/plans?conversationId=${f.conversationId}`)).body.plans;
    expect(plans.map((plan: any) => plan.goal)).toEqual(['Ship the parser']);
  });

  it('plan: a turn without submit_plan is reminded twice as further messages to the same CLI process, then flagged deliverableFailed', async () => {
    const spawned: number[] = [];
    const f = await start({ mode: 'plan', transport: { ...SANDBOXED, onSpawn: (pid) => spawned.push(pid) } });
    f.model.script(reply().text('Some thoughts.'), reply().text('Still thinking.'), reply().text('Done thinking.'));
    const detail = await f.waitForRun(await f.send('plan'));
    expect(detail.run.state).toBe('completed');
    expect(spawned).toHaveLength(1);
    expect(detail.events.filter((event: any) => event.type === 'reminder_injected').map((event: any) => event.data.attempt)).toEqual([1, 2]);
    const requests = chatRequests(f);
    expect(requests).toHaveLength(3);
    expect(requests[1]!.lastUserText).toMatch(/You have not called `submit_plan` yet[\s\S]*mcp__control-center__submit_plan/);
    // The same conversation: the reminder follows the first answer.
    expect(requests[2]!.allText).toContain('Some thoughts.');
    expect(detail.run.deliverableFailed).toBe(true);
  });
});

describe('Grok transport: events arrive during the turn', { timeout: 120_000 }, () => {
  it('text deltas, the tool-using step and the tool call’s start and end are recorded while the model is still working', async () => {
    const f = await start();
    const { reply: answer, release } = heldReply(() => reply().text('All done.'));
    f.model.script(reply().text('Looking first. ').tool('bash', { command: 'echo live-17' }), answer);
    const runId = await f.send('look');
    await f.model.waitForRequests(2, 60_000);
    // The second model call is held: the turn is not over, yet its first step is already in the run.
    const during = (await f.api('GET', `/api/workspaces/${f.workspaceId}/runs/${runId}`)).body;
    expect(during.run.state).toBe('running');
    const types = during.events.map((event: any) => event.type);
    expect(types).toEqual(expect.arrayContaining(['assistant_message', 'tool_call_start', 'tool_call_end']));
    expect(during.events.find((event: any) => event.type === 'tool_call_end').data.result.content).toContain('live-17');
    // Text deltas go to the operator's stream as the model writes them (they are not kept in the run log).
    const deltas = () => f.operator!.events.filter((event) => event.event === 'run.event' && event.data.data.event?.type === 'text_delta').map((event) => event.data.data.event.text);
    expect(deltas().join('')).toBe('Looking first. ');
    release();
    const detail = await f.waitForRun(runId);
    expect(detail.run.state).toBe('completed');
    expect(deltas().join('')).toBe('Looking first. All done.');
  });

  it('a tool the CLI ran and that failed is reported as an error result', async () => {
    const f = await start();
    f.model.script(reply().tool('view_file', { path: 'missing.txt' }), reply().text('It is missing.'));
    const detail = await f.waitForRun(await f.send('read it'));
    expect(detail.run.state).toBe('completed');
    const end = detail.events.find((event: any) => event.type === 'tool_call_end');
    expect(end?.data).toMatchObject({ call: { name: 'view_file' }, result: { isError: true }, executed: true });
  });
});

describe('Grok transport: a message sent into the running turn (HAR-5, RLY-9)', { timeout: 180_000 }, () => {
  it('steering reaches the CLI before its next model call; a mode change meanwhile does not change the turn, and applies from the next message', async () => {
    const f = await start();
    const { reply: firstStep, release } = heldReply(() => reply().tool('bash', { command: 'echo step-one' }));
    f.model.script(firstStep, reply().text('Adjusted as asked.'), reply().text('Next answer.'));
    const runId = await f.send('start working');
    await f.model.waitForRequests(1, 60_000);
    // The operator switches to Ask and types into the running turn.
    await f.setMode('chat', 'askFirst');
    expect((await f.api('POST', `/api/workspaces/${f.workspaceId}/runs/${runId}/steer`, { text: 'also mention the weather' })).status).toBe(200);
    // The steering line goes to the CLI's stdin, which its preload reads on its own; nothing observable
    // says it has been read before the next model call, so give a loaded machine time to get there.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    release();
    const detail = await f.waitForRun(runId);
    expect(detail.run.state).toBe('completed');
    expect(detail.run).toMatchObject({ mode: 'chat', autonomy: 'actWithApproval' });
    expect(detail.events.filter((event: any) => event.type === 'steering_injected').map((event: any) => event.data.text)).toEqual(['also mention the weather']);
    const requests = chatRequests(f);
    expect(requests).toHaveLength(2);
    // Told before the next model call, as the user's words, without the Ask line (the turn is still Agent).
    expect(requests[1]!.allText).toContain('also mention the weather');
    expect(requests[1]!.allText).not.toContain('[Relay mode: Ask]');
    // The next message starts a turn in Ask and carries the line; the steering stays in the conversation.
    expect((await f.waitForRun(await f.send('and now?'))).run.state).toBe('completed');
    const next = chatRequests(f)[2]!;
    expect(next.lastUserText).toMatch(/^\[Relay mode: Ask\][\s\S]*\n\nand now\?$/);
    expect(next.allText).toContain('also mention the weather');
  });
});

describe('Grok transport: the conversation goes on across messages', { timeout: 240_000 }, () => {
  it('the second message sees the first (its question, tool call and answer); the mode line comes only when the mode changes', async () => {
    const f = await start();
    f.model.script(reply().tool('bash', { command: 'echo tool-said-17' }), reply().text('The first answer is 41.'), reply().text('Second answer.'), reply().text('Third answer.'), reply().text('Fourth answer.'));
    expect((await f.waitForRun(await f.send('first question'))).run.state).toBe('completed');
    expect((await f.waitForRun(await f.send('second question'))).run.state).toBe('completed');
    await f.setMode('chat', 'askFirst');
    expect((await f.waitForRun(await f.send('third question'))).run.state).toBe('completed');
    expect((await f.waitForRun(await f.send('fourth question'))).run.state).toBe('completed');
    await f.setMode('chat', 'actWithApproval');
    expect((await f.waitForRun(await f.send('fifth question'))).run.state).toBe('completed');
    const requests = chatRequests(f);
    expect(requests).toHaveLength(6);
    const second = requests[2]!;
    expect(second.lastUserText).toBe('second question');
    expect(second.allText).toContain('first question');
    expect(second.allText).toContain('The first answer is 41.');
    expect(second.allText).toContain('tool-said-17');
    // RLY-8: a line on the change to Ask, none on the next Ask message, the revocation on the way back.
    expect(requests[3]!.lastUserText).toMatch(/^\[Relay mode: Ask\]/);
    expect(requests[4]!.lastUserText).toBe('fourth question');
    expect(requests[5]!.lastUserText).toMatch(/^\[Relay mode: Agent\] The earlier Ask mode instructions no longer apply\.\n\nfifth question$/);
    // The system prompt is sent once per turn, never duplicated by the carried transcript.
    expect(requests[5]!.system?.match(/You are Grok CLI/g)).toHaveLength(1);
  });
});

describe('Grok transport: failures are reported', { timeout: 120_000 }, () => {
  it('the CLI dying mid-turn fails the run with the reason', async () => {
    let pid = 0;
    const f = await start({ transport: { onSpawn: (spawned) => (pid = spawned) } });
    f.model.script(
      reply(() => {
        process.kill(pid, 'SIGKILL');
        return reply().hang();
      }),
    );
    const detail = await f.waitForRun(await f.send('hello'));
    expect(detail.run.state).toBe('failed');
    expect(detail.run.error).toMatch(/The Grok CLI ended without finishing the turn \(killed by SIGKILL\)/);
  });

  it('cancel ends the turn cancelled and the CLI process is gone', async () => {
    let pid = 0;
    const f = await start({ transport: { onSpawn: (spawned) => (pid = spawned), killGraceMs: 200 } });
    f.model.script(reply().hang());
    const runId = await f.send('hello');
    await f.model.waitForRequests(1, 60_000);
    expect((await f.api('POST', `/api/workspaces/${f.workspaceId}/runs/${runId}/cancel`)).status).toBe(200);
    const detail = await f.waitForRun(runId);
    expect(detail.run.state).toBe('cancelled');
    expect(() => process.kill(pid, 0)).toThrow();
  });

  it('a failed model call (which the CLI turns into an ordinary answer) fails the run with the model’s error', async () => {
    const f = await start();
    f.model.script(reply().error(400, 'the request is refused'));
    const detail = await f.waitForRun(await f.send('hello'));
    expect(detail.run.state).toBe('failed');
    expect(detail.run.error).toMatch(/model call failed: .*the request is refused/);
  });

  it('a failed turn does not enter the transcript: the next message does not see it', async () => {
    const f = await start();
    f.model.script(reply().error(400, 'the request is refused'), reply().text('Fine now.'));
    expect((await f.waitForRun(await f.send('lost message'))).run.state).toBe('failed');
    expect((await f.waitForRun(await f.send('kept message'))).run.state).toBe('completed');
    expect(chatRequests(f).at(-1)!.allText).not.toContain('lost message');
  });
});

describe('Grok transport: steering that arrives as the turn ends is never dropped (HAR-5, RLY-9)', { timeout: 180_000 }, () => {
  it('text steered while the last model call answers (after the last steering hand-over) is delivered in the same turn', async () => {
    const f = await start();
    let runId = '';
    let steerStatus = 0;
    f.model.script(
      // The steer lands in the run while the CLI's last model call is answering: the answer finishes
      // within milliseconds, before the next steering hand-over, so the CLI goes idle without it.
      reply(async () => {
        steerStatus = (await f.api('POST', `/api/workspaces/${f.workspaceId}/runs/${runId}/steer`, { text: 'one more thing: say goodbye' })).status;
        return reply().text('First answer.');
      }),
      reply().text('Goodbye, as asked.'),
    );
    runId = await f.send('hello');
    const detail = await f.waitForRun(runId);
    expect(steerStatus).toBe(200);
    expect(detail.run.state).toBe('completed');
    expect(detail.events.filter((event: any) => event.type === 'steering_injected').map((event: any) => event.data.text)).toEqual(['one more thing: say goodbye']);
    const requests = chatRequests(f);
    expect(requests).toHaveLength(2);
    expect(requests[1]!.lastUserText).toBe('one more thing: say goodbye');
    expect(detail.run.finalText ?? detail.events.filter((event: any) => event.type === 'assistant_message').at(-1)?.data.message.content[0].text).toContain('Goodbye');
  });
});

describe('Grok transport: pause holds the next model request at the model proxy (HAR-5)', { timeout: 180_000 }, () => {
  const runEvents = async (f: ClaudeCodeFixture, runId: string) => (await f.api('GET', `/api/workspaces/${f.workspaceId}/runs/${runId}`)).body.events as any[];
  /** A turn paused while its first model call answers with one `bash` call; returns once the call ended. */
  async function pausedAfterTool(f: ClaudeCodeFixture, command: string, answer: string): Promise<{ runId: string; controls: string }> {
    const { reply: firstStep, release } = heldReply(() => reply().tool('bash', { command }));
    f.model.script(firstStep, reply().text(answer));
    const runId = await f.send('work');
    await f.model.waitForRequests(1, 60_000);
    const controls = `/api/workspaces/${f.workspaceId}/runs/${runId}`;
    expect((await f.api('POST', `${controls}/pause`)).status).toBe(200);
    release();
    const deadline = Date.now() + 60_000;
    while (!(await runEvents(f, runId)).some((event) => event.type === 'tool_call_end') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    return { runId, controls };
  }
  /**
   * Waits until the CLI's next model request has reached the model proxy and waits there for the
   * resume: the positive sign that the pause holds (no fixed window, which a slow failure passes).
   */
  async function heldAtTheProxy(f: ClaudeCodeFixture, runId: string): Promise<void> {
    const deadline = Date.now() + 60_000;
    while ((f.app.activeRuns.get(runId)?.resumeWaiters.length ?? 0) === 0) {
      if (Date.now() > deadline) throw new Error('no model request of the paused run reached the proxy');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('paused: the tool call in flight finishes, the next model request waits until resume, then the turn completes', async () => {
    const f = await start();
    const { runId, controls } = await pausedAfterTool(f, 'echo while-pausing', 'Resumed and done.');
    // The command the model asked for still ran (it was decided before the pause)…
    expect((await runEvents(f, runId)).find((event) => event.type === 'tool_call_end')?.data.result.content).toContain('while-pausing');
    // …but the CLI gets no further model answer while paused: its request is held at the proxy.
    await heldAtTheProxy(f, runId);
    expect(chatRequests(f)).toHaveLength(1);
    expect((await f.api('GET', `${controls}/controls`)).body).toMatchObject({ inProgress: true, paused: true });
    expect((await f.api('GET', `${controls}`)).body.run.state).toBe('running');
    expect((await f.api('POST', `${controls}/resume`)).status).toBe(200);
    const detail = await f.waitForRun(runId);
    expect(detail.run.state).toBe('completed');
    expect(chatRequests(f)).toHaveLength(2);
    expect(chatRequests(f)[1]!.lastToolResult?.content).toContain('while-pausing');
  });

  it('cancel while paused ends the turn cancelled, the held request is never sent on, and the CLI is gone', async () => {
    let pid = 0;
    const f = await start({ transport: { onSpawn: (spawned) => (pid = spawned), killGraceMs: 200 } });
    const { runId, controls } = await pausedAfterTool(f, 'echo before-cancel', 'Never reached.');
    await heldAtTheProxy(f, runId);
    expect((await f.api('POST', `${controls}/cancel`)).status).toBe(200);
    const detail = await f.waitForRun(runId);
    expect(detail.run.state).toBe('cancelled');
    expect(chatRequests(f)).toHaveLength(1);
    expect(() => process.kill(pid, 0)).toThrow();
  });
});

describe('Grok transport: the carried transcript is bounded (RLY-7)', { timeout: 180_000 }, () => {
  it('a tool output is carried whole while recent, then cut to a marker; the first question and the answers stay', async () => {
    const f = await start({ transport: { transcriptBounds: { recentExchanges: 1, oldToolOutputChars: 300, maxChars: 1_000_000 } } });
    f.model.script(reply().tool('bash', { command: 'seq 100000 100400' }), reply().text('Counted.'), reply().text('Second answer.'), reply().text('Third answer.'));
    expect((await f.waitForRun(await f.send('first question'))).run.state).toBe('completed');
    expect((await f.waitForRun(await f.send('second question'))).run.state).toBe('completed');
    // The last earlier exchange is carried whole: the second turn sees the whole output
    // (100400 is in the command itself; 100399 only in its output).
    expect(chatRequests(f)[2]!.allText).toContain('100399');
    expect((await f.waitForRun(await f.send('third question'))).run.state).toBe('completed');
    const next = chatRequests(f)[3]!;
    expect(next.allText).toContain('first question');
    expect(next.allText).toContain('Counted.');
    expect(next.allText).toContain('Second answer.');
    expect(next.allText).toContain('100000');
    expect(next.allText).not.toContain('100399');
    expect(next.allText).toMatch(/more characters of this earlier tool output are left out of the carried conversation/);
    expect(next.lastUserText).toBe('third question');
  });
});
