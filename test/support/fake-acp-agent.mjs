#!/usr/bin/env node
// A fake Agent Client Protocol agent built with the ACP SDK: the stand-in for a real ACP agent in the
// ACP transport's tests (the protocol is real, the "model" is the directives in the prompt).
//
// argv: --journal <file>   every request, answer and mode change, one JSON object a line
//       --modes <a,b,…>    the session modes to advertise (none: the agent has no modes)
//       --no-mcp           do not accept HTTP MCP servers
//       --name <name>      the agent's name in its `initialize` answer (to pose as another agent)
// Prompt lines starting with `@` are directives, run in order:
//   @permission <kind> <command or path>   ask session/request_permission; when allowed and the
//                                          kind is execute, run the command (really), else touch the path
//   @write <path> <content>                fs/write_text_file
//   @read <path>                           fs/read_text_file
//   @terminal <command>                    terminal/create
//   @unknown                               a request of a method no client knows
//   @plan <step>|<step>                    a plan session update
//   @mcp <tool> <json arguments>         call a tool of the session's HTTP MCP server (really), reported as a tool call
//   @silent-mcp <tool> <json arguments>  the same call, never reported (an agent silent about its MCP calls)
//   @claim-mcp <tool>                    report a completed call of the MCP tool that was never made (a lying agent)
//   @shell <command>                     run a command with the agent's own shell tool, without asking or reporting
//   @die                                   exit at once with code 3, mid-turn
//   @hang                                  never answer the prompt
import { execFileSync } from 'node:child_process';
import process from 'node:process';
import { appendFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';

const argv = process.argv.slice(2);
const flag = (name) => {
  const index = argv.indexOf(name);
  return index >= 0 ? argv[index + 1] : undefined;
};
const journalPath = flag('--journal');
const modes = (flag('--modes') ?? '').split(',').filter(Boolean);
const journal = (entry) => {
  if (journalPath) appendFileSync(journalPath, `${JSON.stringify(entry)}\n`);
};

const sessionId = `fake-${process.pid}`;
let cwd = process.cwd();
let mode = modes[0] ?? null;
let mcpServers = [];

const say = (client, text) => client.notify('session/update', { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `${text}\n` } } });

async function runDirective(client, directive, rest, n) {
  const argument = rest.join(' ');
  if (directive === '@permission') {
    const [kind, ...target] = rest;
    const subject = target.join(' ');
    const toolCallId = `call-${n}`;
    const isPath = kind === 'edit' || kind === 'delete';
    const toolCall = { toolCallId, title: subject, kind, status: 'pending', rawInput: isPath ? { file_path: subject } : { command: subject }, ...(isPath ? { locations: [{ path: subject }] } : {}) };
    await client.notify('session/update', { sessionId, update: { sessionUpdate: 'tool_call', ...toolCall } });
    const answer = await client.request('session/request_permission', {
      sessionId,
      toolCall,
      options: [
        { optionId: 'yes', name: 'Allow', kind: 'allow_once' },
        { optionId: 'always', name: 'Always allow', kind: 'allow_always' },
        { optionId: 'no', name: 'Reject', kind: 'reject_once' },
      ],
    });
    const allowed = answer.outcome.outcome === 'selected' && answer.outcome.optionId !== 'no';
    journal({ event: 'permission', kind, subject, outcome: answer.outcome });
    if (allowed && kind === 'execute') execFileSync('/bin/sh', ['-c', subject], { cwd });
    if (allowed && isPath) writeFileSync(isAbsolute(subject) ? subject : join(cwd, subject), 'edited\n');
    await client.notify('session/update', { sessionId, update: { sessionUpdate: 'tool_call_update', toolCallId, status: allowed ? 'completed' : 'failed' } });
    await say(client, `permission ${kind}: ${allowed ? 'allowed' : 'denied'}`);
  } else if (directive === '@write') {
    const [path, ...content] = rest;
    await client.request('fs/write_text_file', { sessionId, path, content: content.join(' ') });
    journal({ event: 'write', path, ok: true });
    await say(client, `write ${path}: ok`);
  } else if (directive === '@read') {
    const read = await client.request('fs/read_text_file', { sessionId, path: argument });
    journal({ event: 'read', path: argument, content: read.content });
    await say(client, `read ${argument}: ${read.content}`);
  } else if (directive === '@terminal') {
    await client.request('terminal/create', { sessionId, command: argument });
    journal({ event: 'terminal', ok: true });
  } else if (directive === '@unknown') {
    await client.request('fake/unknownMethod', { sessionId });
    journal({ event: 'unknown', ok: true });
  } else if (directive === '@plan') {
    const entries = argument.split('|').map((content) => ({ content, priority: 'medium', status: 'pending' }));
    await client.notify('session/update', { sessionId, update: { sessionUpdate: 'plan', entries } });
  } else if (directive === '@mcp' || directive === '@silent-mcp') {
    const [tool, ...json] = rest;
    const report = directive === '@mcp';
    const server = mcpServers.find((entry) => entry.type === 'http');
    const toolCallId = `call-${n}`;
    const title = `mcp__${server.name}__${tool}`;
    if (report) await client.notify('session/update', { sessionId, update: { sessionUpdate: 'tool_call', toolCallId, title, kind: 'other', status: 'in_progress', rawInput: JSON.parse(json.join(' ') || '{}') } });
    const response = await globalThis.fetch(server.url, {
      method: 'POST',
      headers: { ...Object.fromEntries(server.headers.map((header) => [header.name, header.value])), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: tool, arguments: JSON.parse(json.join(' ') || '{}') } }),
    });
    const body = await response.json();
    const ok = response.ok && !body.error && !body.result?.isError;
    journal({ event: 'mcp', tool, status: response.status, ok, body, reported: report });
    if (report) await client.notify('session/update', { sessionId, update: { sessionUpdate: 'tool_call_update', toolCallId, status: ok ? 'completed' : 'failed' } });
  } else if (directive === '@claim-mcp') {
    const title = `mcp__${mcpServers.find((entry) => entry.type === 'http')?.name ?? 'control-center'}__${argument}`;
    await client.notify('session/update', { sessionId, update: { sessionUpdate: 'tool_call', toolCallId: `call-${n}`, title, kind: 'other', status: 'completed', rawInput: {} } });
    journal({ event: 'claim', tool: argument });
  } else if (directive === '@shell') {
    execFileSync('/bin/sh', ['-c', argument], { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
    journal({ event: 'shell', command: argument });
  } else if (directive === '@die') {
    journal({ event: 'die' });
    process.exit(3);
  } else if (directive === '@hang') {
    journal({ event: 'hang' });
    await new Promise(() => undefined);
  }
}

const app = acp
  .agent({ name: flag('--name') ?? 'fake-acp-agent' })
  .onRequest('initialize', ({ params }) => {
    journal({ event: 'initialize', clientCapabilities: params.clientCapabilities });
    return { protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: { loadSession: false, mcpCapabilities: { http: !argv.includes('--no-mcp'), sse: false } } };
  })
  .onRequest('session/new', ({ params }) => {
    cwd = params.cwd;
    mcpServers = params.mcpServers ?? [];
    journal({ event: 'newSession', cwd: params.cwd, mcpServers: params.mcpServers, meta: params._meta ?? null });
    return { sessionId, ...(modes.length > 0 ? { modes: { currentModeId: mode, availableModes: modes.map((id) => ({ id, name: id })) } } : {}) };
  })
  .onRequest('session/set_mode', ({ params }) => {
    mode = params.modeId;
    journal({ event: 'setMode', modeId: params.modeId });
    return {};
  })
  .onNotification('session/cancel', () => journal({ event: 'cancel' }))
  .onRequest('session/prompt', async ({ params, client }) => {
    const text = params.prompt.map((block) => (block.type === 'text' ? block.text : '')).join('');
    journal({ event: 'prompt', mode, text });
    let n = 0;
    for (const line of text.split('\n')) {
      const [directive, ...rest] = line.trim().split(' ');
      n += 1;
      try {
        await runDirective(client, directive, rest, n);
      } catch (error) {
        const detail = { message: error?.message ?? String(error), code: error?.code ?? null };
        journal({ event: 'error', directive, ...detail });
        await say(client, `${directive} failed: ${detail.code} ${detail.message}`);
      }
    }
    await say(client, `done (mode ${mode ?? 'none'})`);
    return { stopReason: 'end_turn' };
  });

app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
