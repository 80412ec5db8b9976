/**
 * TEAM-3: the audit log over the real server — acts by two people land with the right person, the
 * filters and the cursor find them, the JSON Lines export carries the same entries, a key's value is
 * never written, an act that rolls back leaves no entry, and only admins (and the owner) read it.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextPendingApproval } from '../support/harness-approvals.js';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { asPerson, invitePerson, type InvitedPerson } from '../support/people-fixture.js';
import { reply } from '../support/scripted-reply.js';

interface Entry {
  id: string;
  kind: string;
  actor: { kind: string; id: string | null; name: string };
  spaceId: string | null;
  subject: { type: string; id: string } | null;
  summary: string;
  details: Record<string, unknown>;
  createdAt: string;
}

let fixture: HarnessFixture;
let ada: InvitedPerson;
let dana: InvitedPerson;
let vera: InvitedPerson;
const SECRET_KEY = 'sk-audit-never-written-0123456789';

const base = () => `/api/workspaces/${fixture.workspaceId}`;
const auditAs = (token: string, query = '') => asPerson(fixture.server, token, 'GET', `${base()}/audit${query}`);
const jsonLinesAs = async (token: string, query = '') => {
  const response = await fetch(`${fixture.server.url}${base()}/audit.jsonl${query}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
};

beforeAll(async () => {
  fixture = await startHarnessFixture();
  ada = await invitePerson(fixture.server, fixture.workspaceId, 'admin', 'Ada');
  dana = await invitePerson(fixture.server, fixture.workspaceId, 'member', 'Dana');
  vera = await invitePerson(fixture.server, fixture.workspaceId, 'viewer', 'Vera');

  // Ada: a space rule and a settings change with a key; Dana: an approval.
  const rule = await asPerson(fixture.server, ada.token, 'POST', `${base()}/policy/rules`, { scope: 'space', scopeId: fixture.spaceId, match: { kind: 'class', effectClass: 'gitPush' }, decision: 'deny' });
  expect(rule.status).toBe(201);
  const settings = await asPerson(fixture.server, ada.token, 'PATCH', `${base()}/settings`, { apiKeys: { openai: SECRET_KEY }, maxConcurrentRuns: 3 });
  expect(settings.status).toBe(200);
  fixture.model.script(reply().tool('bash', { command: 'rm -f old.txt' }), reply().text('done'));
  const runId = await fixture.send('clean up');
  const approval = await nextPendingApproval(fixture, new Set());
  expect((await asPerson(fixture.server, dana.token, 'POST', `${base()}/approvals/${approval.id}/decision`, { decision: 'approve' })).status).toBe(200);
  await fixture.waitForRun(runId);
}, 120_000);

afterAll(async () => {
  await fixture?.dispose();
});

describe('the audit log (TEAM-3)', () => {
  it('records each act with the person who did it', async () => {
    const page = await auditAs(ada.token, '?limit=500');
    expect(page.status).toBe(200);
    const entries = page.body.entries as Entry[];
    const ruleAdded = entries.find((entry) => entry.kind === 'policy.rule_added')!;
    expect(ruleAdded.actor).toEqual({ kind: 'person', id: ada.personId, name: 'Ada' });
    expect(ruleAdded.spaceId).toBe(fixture.spaceId);
    expect(ruleAdded.summary).toContain('deny');
    const settings = entries.find((entry) => entry.kind === 'settings.changed')!;
    expect(settings.actor.id).toBe(ada.personId);
    expect(settings.details).toEqual({ changed: ['maxConcurrentRuns'], keysSet: ['apiKeys.openai'], keysRemoved: [] });
    const approved = entries.find((entry) => entry.kind === 'approval.approved')!;
    expect(approved.actor).toEqual({ kind: 'person', id: dana.personId, name: 'Dana' });
    expect(approved.subject?.type).toBe('approval');
    // Acts on people come from the registry's log: the owner's invitations, each person's own token.
    const owner = entries.filter((entry) => entry.kind === 'invitation.created');
    expect(owner).toHaveLength(3);
    expect(new Set(owner.map((entry) => entry.actor.name)).size).toBe(1);
    expect(entries.filter((entry) => entry.kind === 'token.created').map((entry) => entry.actor.id).sort()).toEqual([ada.personId, dana.personId, vera.personId].sort());
    // Newest first.
    const times = entries.map((entry) => entry.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
    expect(JSON.stringify(entries)).not.toContain(SECRET_KEY);
  });

  it('filters by person, kind, space and time', async () => {
    const byDana = (await auditAs(ada.token, `?person=${dana.personId}`)).body.entries as Entry[];
    expect(byDana.length).toBeGreaterThan(0);
    expect(byDana.every((entry) => entry.actor.id === dana.personId)).toBe(true);
    expect(byDana.map((entry) => entry.kind)).toContain('approval.approved');

    const policy = (await auditAs(ada.token, '?kind=policy')).body.entries as Entry[];
    expect(policy.map((entry) => entry.kind)).toEqual(['policy.rule_added']);
    const exact = (await auditAs(ada.token, '?kind=settings.changed')).body.entries as Entry[];
    expect(exact.map((entry) => entry.kind)).toEqual(['settings.changed']);

    const inSpace = (await auditAs(ada.token, `?space=${fixture.spaceId}`)).body.entries as Entry[];
    expect(inSpace.map((entry) => entry.kind).sort()).toEqual(['approval.approved', 'policy.rule_added']);

    const all = (await auditAs(ada.token, '?limit=500')).body.entries as Entry[];
    const approvedAt = all.find((entry) => entry.kind === 'approval.approved')!.createdAt;
    const since = (await auditAs(ada.token, `?from=${encodeURIComponent(approvedAt)}`)).body.entries as Entry[];
    expect(since.every((entry) => entry.createdAt >= approvedAt)).toBe(true);
    expect(since.map((entry) => entry.kind)).toContain('approval.approved');
    const until = (await auditAs(ada.token, `?to=${encodeURIComponent(approvedAt)}&limit=500`)).body.entries as Entry[];
    expect(until.every((entry) => entry.createdAt < approvedAt)).toBe(true);
    expect(since.length + until.length).toBe(all.length);
  });

  it('pages with a cursor without skipping or repeating an entry', async () => {
    const all = (await auditAs(ada.token, '?limit=500')).body.entries as Entry[];
    expect(all.length).toBeGreaterThan(4);
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await auditAs(ada.token, `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.body.entries.length).toBeLessThanOrEqual(2);
      walked.push(...(page.body.entries as Entry[]).map((entry) => entry.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(walked).toEqual(all.map((entry) => entry.id));
  });

  it('exports the same entries as JSON Lines, with the same filters', async () => {
    const all = (await auditAs(ada.token, '?limit=500')).body.entries as Entry[];
    const exported = await jsonLinesAs(ada.token);
    expect(exported.status).toBe(200);
    expect(exported.type).toContain('application/x-ndjson');
    const lines = exported.text.trimEnd().split('\n').map((line) => JSON.parse(line) as Entry);
    expect(lines).toEqual(all);
    expect(exported.text).not.toContain(SECRET_KEY);
    const filtered = await jsonLinesAs(ada.token, `?person=${dana.personId}`);
    expect(filtered.text.trimEnd().split('\n').map((line) => (JSON.parse(line) as Entry).actor.id)).toEqual(expect.arrayContaining([dana.personId]));
    expect(filtered.text.trimEnd().split('\n').every((line) => (JSON.parse(line) as Entry).actor.id === dana.personId)).toBe(true);
  });

  it('refuses bad filters with 400 naming the field', async () => {
    for (const [query, field] of [
      ['?limit=0', 'limit'],
      ['?limit=many', 'limit'],
      ['?from=yesterday', 'from'],
      ['?to=2026-13-45', 'to'],
      ['?kind=DROP%20TABLE', 'kind'],
      ['?cursor=not-a-cursor', 'cursor'],
      ['?colour=red', 'colour'],
    ] as const) {
      const answer = await auditAs(ada.token, query);
      expect(answer.status, query).toBe(400);
      expect(JSON.stringify(answer.body.error), query).toContain(field);
      expect((await jsonLinesAs(ada.token, query.startsWith('?cursor') || query.startsWith('?limit') ? '?from=yesterday' : query)).status, query).toBe(400);
    }
  });

  it('is an admin\'s: a member and a viewer get 403, and reading changes nothing', async () => {
    const before = (await auditAs(ada.token, '?limit=500')).body.entries.length;
    for (const person of [dana, vera]) {
      const answer = await auditAs(person.token);
      expect(answer.status).toBe(403);
      expect(answer.body.error.field).toBe('role');
      expect((await jsonLinesAs(person.token)).status).toBe(403);
    }
    expect((await auditAs(ada.token, '?limit=500')).body.entries.length).toBe(before);
  });

  it('an act that rolls back leaves no entry', async () => {
    // The store itself refuses the rule's row (a trigger in the workspace's real store: its SQLite file, or
    // its PostgreSQL schema), after the entry was written in the same transaction.
    const { database } = await fixture.server.running.app.workspaces.handle(fixture.workspaceId);
    const onPostgres = process.env.CC_TEST_DATABASE === 'postgres';
    if (onPostgres) {
      await sql`create function refuse_rules_for_the_test() returns trigger language plpgsql as $$ begin raise exception 'refused for the test'; end $$`.execute(database.db);
      await sql`create trigger refuse_rules before insert on policy_rules for each row execute function refuse_rules_for_the_test()`.execute(database.db);
    } else {
      await sql`create trigger refuse_rules before insert on policy_rules begin select raise(abort, 'refused for the test'); end`.execute(database.db);
    }
    try {
      const refused = await asPerson(fixture.server, ada.token, 'POST', `${base()}/policy/rules`, { scope: 'workspace', match: { kind: 'command', prefix: 'curl' }, decision: 'ask' });
      expect(refused.status).toBe(500);
    } finally {
      if (onPostgres) {
        await sql`drop trigger refuse_rules on policy_rules`.execute(database.db);
        await sql`drop function refuse_rules_for_the_test()`.execute(database.db);
      } else {
        await sql`drop trigger refuse_rules`.execute(database.db);
      }
    }
    const policy = (await auditAs(ada.token, '?kind=policy')).body.entries as Entry[];
    expect(policy).toHaveLength(1);
    expect(policy[0]!.summary).not.toContain('curl');
    // A decision on an approval already decided is refused (409) and records nothing either.
    const approvals = (await asPerson(fixture.server, ada.token, 'GET', `${base()}/approvals`)).body.approvals as Array<{ id: string; status: string }>;
    const decided = approvals.find((approval) => approval.status === 'approved')!;
    expect((await asPerson(fixture.server, dana.token, 'POST', `${base()}/approvals/${decided.id}/decision`, { decision: 'reject' })).status).toBe(409);
    expect(((await auditAs(ada.token, '?kind=approval')).body.entries as Entry[]).map((entry) => entry.kind)).toEqual(['approval.approved']);
  });

  it('records agent acts: who created, changed (field names, never values) and deleted which agent; a refused change leaves none', async () => {
    const SECRET_PROMPT = 'prompt-value-never-in-the-log-4711';
    const created = await asPerson(fixture.server, ada.token, 'POST', `${base()}/agents`, { name: 'auditor', title: 'Checks things', systemPrompt: SECRET_PROMPT });
    expect(created.status).toBe(201);
    const agentId = created.body.id as string;
    const changed = await asPerson(fixture.server, ada.token, 'PATCH', `${base()}/agents/${agentId}`, { title: 'Checks everything', persona: SECRET_PROMPT, name: 'chief-auditor' });
    expect(changed.status).toBe(200);
    // Refused (400, an agent cannot report to itself): the entry written first rolls back with it.
    const refused = await asPerson(fixture.server, ada.token, 'PATCH', `${base()}/agents/${agentId}`, { title: 'Never saved', reportsTo: agentId });
    expect(refused.status).toBe(400);
    expect(refused.body.error.field).toBe('reportsTo');
    expect((await asPerson(fixture.server, ada.token, 'DELETE', `${base()}/agents/${agentId}`)).status).toBe(204);

    const entries = ((await auditAs(ada.token, '?kind=agent&limit=500')).body.entries as Entry[]).filter((entry) => entry.subject?.id === agentId);
    expect(entries.map((entry) => entry.kind)).toEqual(['agent.deleted', 'agent.updated', 'agent.created']);
    for (const entry of entries) expect(entry.actor).toEqual({ kind: 'person', id: ada.personId, name: 'Ada' });
    const [deleted, updated, made] = entries as [Entry, Entry, Entry];
    expect(made.details).toEqual({ name: 'auditor', fields: ['name', 'title', 'systemPrompt'] });
    expect(updated.details).toEqual({ name: 'chief-auditor', previousName: 'auditor', changed: ['name', 'title', 'persona'] });
    expect(updated.summary).toBe('Changed agent chief-auditor: name, title, persona');
    expect(deleted.summary).toBe('Deleted agent chief-auditor');
    expect(JSON.stringify(entries)).not.toContain(SECRET_PROMPT);
    expect(JSON.stringify(entries)).not.toContain('Never saved');
    // A member may not change agents (403), and that records nothing either.
    expect((await asPerson(fixture.server, dana.token, 'POST', `${base()}/agents`, { name: 'sneaky' })).status).toBe(403);
    expect(((await auditAs(ada.token, `?kind=agent&person=${dana.personId}`)).body.entries as Entry[])).toEqual([]);
  });
});
