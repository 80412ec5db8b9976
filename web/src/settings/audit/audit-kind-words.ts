import { spacedWords } from '../../ui/words.js';

/**
 * TEAM-3: an audit entry's kind (`agent.created`, a dotted code the server writes and the filter and
 * the export use) as words a person reads on the Audit log page. The code stays the filter's value
 * and the row's title; only the words are shown.
 */
const AUDIT_KIND_WORDS: Record<string, string> = {
  'approval.approved': 'Tool call approved',
  'approval.rejected': 'Tool call rejected',
  'plan.approved': 'Plan approved',
  'plan.rejected': 'Plan rejected',
  'orchestration.approved': 'Orchestration approved',
  'orchestration.rejected': 'Orchestration rejected',
  'orchestration.cancelled': 'Orchestration cancelled',
  'policy.rule_added': 'Approval rule added',
  'policy.rule_removed': 'Approval rule removed',
  'settings.changed': 'Workspace settings changed',
  'budget.dismissed': 'Budget alert dismissed',
  'budget.stopped': 'Runs stopped at the spend limit',
  'budget.raised_once': 'Spend limit raised once',
  'budget.raised': 'Spend limit raised',
  'skill.override_set': 'Quarantined skill installed anyway',
  'agent.created': 'Agent created',
  'agent.updated': 'Agent changed',
  'agent.deleted': 'Agent deleted',
  'person.role_changed': 'Role changed',
  'person.role_changed_by_provider': 'Role changed by sign-in provider',
  'person.removed_from_workspace': 'Person taken out of the workspace',
  'person.removed': 'Person removed',
  'invitation.created': 'Invitation sent',
  'token.created': 'Personal token made',
  'token.revoked': 'Personal token revoked',
  'session.revoked': 'Browser session ended',
};

/** A family (`policy`, the part before the dot) as words: the filter matches every kind in it. */
const AUDIT_FAMILY_WORDS: Record<string, string> = {
  approval: 'Tool call approvals',
  plan: 'Plan decisions',
  orchestration: 'Orchestration decisions',
  policy: 'Approval rules',
  settings: 'Workspace settings',
  budget: 'Budget decisions',
  skill: 'Skill overrides',
  agent: 'Agents',
  person: 'People',
  invitation: 'Invitations',
  token: 'Personal tokens',
  session: 'Browser sessions',
};

/** Every kind the server writes, in the order the filter offers them. */
export const AUDIT_KINDS: readonly string[] = Object.keys(AUDIT_KIND_WORDS);

/** Every family, in the order the filter offers them. */
export const AUDIT_FAMILIES: readonly string[] = Object.keys(AUDIT_FAMILY_WORDS);

function capitalised(words: string): string {
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * A kind as words. A kind the list does not know yet (a newer server) still reads as words, never as
 * the raw code: `widget.colour_changed` → "Widget: colour changed".
 */
export function auditKindWord(kind: string): string {
  const known = AUDIT_KIND_WORDS[kind] ?? AUDIT_FAMILY_WORDS[kind];
  if (known) return known;
  const [family = '', ...rest] = kind.split('.');
  const act = spacedWords(rest.join(' '));
  const familyWords = AUDIT_FAMILY_WORDS[family] ?? capitalised(spacedWords(family));
  return act ? `${familyWords}: ${act}` : familyWords;
}
