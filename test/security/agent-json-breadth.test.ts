import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_JSON_LIMITS } from '../../src/server/json-breadth.js';
import { startClaudeCodeFixture, type ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { heldTransport } from '../support/held-transport.js';

/**
 * SEC-10: nesting was bounded, width was not. An agent holding its run token posted 5 MiB of object
 * keys to `/mcp` (a `tools/list` whose params had 300,000 members): V8's parse and the MCP SDK's schema
 * walk held the event loop for ~5.7 s, every request of the server waiting behind it. An agent's JSON
 * body is now refused (400 naming `body`) before it is parsed when it holds more object members or
 * values than any real request, on every route an agent reaches with JSON (`/mcp`, the Claude Code
 * hook). The real server, a run held open on a runner transport for its token.
 */
let fixture: ClaudeCodeFixture | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

const wideObject = (members: number) => Object.fromEntries(Array.from({ length: members }, (_, index) => [`k${index}`, index]));

describe("an agent's JSON body is bounded in width, not only in depth (SEC-10)", () => {
  it('too many object members or values are refused before parsing on /mcp and the hook route; ordinary calls still work', async () => {
    const held = heldTransport();
    fixture = await startClaudeCodeFixture({ adapter: { id: 'grok', transport: () => held.transport } });
    const f = fixture;
    const { ctx } = await held.start(f);
    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${f.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ctx.mcp.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as any };
    };
    const listTools = (params: Record<string, unknown>) => ({ jsonrpc: '2.0', id: 1, method: 'tools/list', params });

    const wideBodies: Array<[string, unknown]> = [
      ['/mcp', listTools(wideObject(AGENT_JSON_LIMITS.members + 1))],
      ['/mcp', listTools({ values: Array.from({ length: AGENT_JSON_LIMITS.values + 1 }, () => 0) })],
      ['/mcp', { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'todo_write', arguments: wideObject(300_000) } }],
      ['/api/hooks/pre-tool-use', { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls', ...wideObject(AGENT_JSON_LIMITS.members + 1) } }],
    ];
    for (const [path, body] of wideBodies) {
      const refused = await post(path, body);
      expect(refused.status, path).toBe(400);
      expect(refused.body.error).toMatchObject({ field: 'body', message: expect.stringMatching(/more than \d+ (object members|values)/) });
    }
    // Keys inside strings are text, not members: a long string full of colons and commas is fine.
    const ordinary = await post('/mcp', listTools({ note: ':,'.repeat(200_000) }));
    expect(ordinary.status).toBe(200);
    expect(ordinary.body.result.tools.length).toBeGreaterThan(0);
    // At the cap itself the body is read as before.
    expect((await post('/mcp', listTools(wideObject(AGENT_JSON_LIMITS.members - 10)))).status).toBe(200);
    held.finish();
  });
});
