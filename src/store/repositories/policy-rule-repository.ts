import type { Kysely, Selectable } from 'kysely';
import { DECISIONS } from '../../core/decisions.js';
import { EFFECT_CLASSES } from '../../core/effect-classes.js';
import { RuleScope, type PolicyRule, type RuleMatch } from '../../schemas/policy.js';
import type { PolicyRuleTable, WorkspaceSchema } from '../workspace-schema.js';
import { enumColumn } from './column-parsers.js';

const parseScope = enumColumn('policy_rules', 'scope', RuleScope.options);
const parseMatchKind = enumColumn('policy_rules', 'match_kind', ['class', 'command', 'domain', 'fingerprint']);
const parseEffectClass = enumColumn('policy_rules', 'match_value', EFFECT_CLASSES);
const parseDecision = enumColumn('policy_rules', 'decision', DECISIONS);

function toMatch(row: Selectable<PolicyRuleTable>): RuleMatch {
  switch (parseMatchKind(row.match_kind, row.id)) {
    case 'class':
      return { kind: 'class', effectClass: parseEffectClass(row.match_value, row.id) };
    case 'command':
      return { kind: 'command', prefix: row.match_value };
    case 'domain':
      return { kind: 'domain', domain: row.match_value };
    case 'fingerprint':
      return { kind: 'fingerprint', fingerprint: row.match_value };
  }
}

/** The one mapper from a `policy_rules` row (POL-3): the match is stored as a kind and a value. */
export function toPolicyRule(row: Selectable<PolicyRuleTable>): PolicyRule {
  return {
    id: row.id,
    scope: parseScope(row.scope, row.id),
    scopeId: row.scope_id,
    match: toMatch(row),
    decision: parseDecision(row.decision, row.id),
    note: row.note,
    createdAt: row.created_at,
    createdBy: row.created_by ?? null,
  };
}

function matchValue(match: RuleMatch): string {
  switch (match.kind) {
    case 'class':
      return match.effectClass;
    case 'command':
      return match.prefix;
    case 'domain':
      return match.domain;
    case 'fingerprint':
      return match.fingerprint;
  }
}

/** Every rule of the workspace, oldest first. */
export async function listPolicyRules(db: Kysely<WorkspaceSchema>): Promise<PolicyRule[]> {
  const rows = await db.selectFrom('policy_rules').selectAll().orderBy('created_at').orderBy('id').execute();
  return rows.map(toPolicyRule);
}

export async function insertPolicyRule(db: Kysely<WorkspaceSchema>, rule: PolicyRule): Promise<void> {
  await db
    .insertInto('policy_rules')
    .values({
      id: rule.id,
      scope: rule.scope,
      scope_id: rule.scopeId,
      match_kind: rule.match.kind,
      match_value: matchValue(rule.match),
      decision: rule.decision,
      note: rule.note,
      created_at: rule.createdAt,
      created_by: rule.createdBy,
    })
    .execute();
}

/** Deletes a rule; false when there was none with this id. */
export async function deletePolicyRule(db: Kysely<WorkspaceSchema>, ruleId: string): Promise<boolean> {
  const result = await db.deleteFrom('policy_rules').where('id', '=', ruleId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Deletes the workspace-scope rules remembered for one action fingerprint (a repeat replaces them, POL-3). */
export async function deleteRememberedRules(db: Kysely<WorkspaceSchema>, fingerprint: string): Promise<void> {
  await db.deleteFrom('policy_rules').where('scope', '=', 'workspace').where('match_kind', '=', 'fingerprint').where('match_value', '=', fingerprint).execute();
}
