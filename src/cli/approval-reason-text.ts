import { effectWord, scopeWord } from './plain-words.js';
import type { Approval } from '../schemas/approval.js';

/** What each non-tool approval kind asks, in words (a tool approval says its effects and the rule instead). */
const KIND_REASONS: Record<string, string> = {
  plan_exit: 'the agent asks to leave plan mode and start changing things',
  plan: 'a plan waits for approval before it runs',
  orchestration: 'an orchestration proposal waits for approval before its team starts',
  orchestration_budget: 'an orchestration would spend more than its budget',
  forgePublish: 'your review would be published to the pull request',
  conversationPublish: "the conversation's branch would be pushed and its pull request opened or updated",
};

const asString = (value: unknown): string | null => (typeof value === 'string' && value.trim() ? value : null);

/**
 * Why an approval waits for a person, in plain words: for a tool call (POL-2/3) what the action does
 * ("deletes files") and which rule asked ("the autonomy setting", "a rule of this space"), and whose
 * rule it was when another space's ceiling asked (SEC-9); for the other kinds what they would do.
 */
export function approvalReasonText(approval: Approval): string {
  const request = approval.request;
  if (approval.kind === 'tool') {
    const classes = Array.isArray(request.classes) ? request.classes.filter((value): value is string => typeof value === 'string') : [];
    const does = classes.length > 0 ? classes.map(effectWord).join(', ') : 'an action the rules gate';
    const decidedBy = request.decidedBy as { scope?: unknown } | undefined;
    const scope = typeof decidedBy?.scope === 'string' ? scopeWord(decidedBy.scope) : null;
    const inherited = request.inheritedFrom as { spaceName?: unknown } | undefined;
    const whose = typeof inherited?.spaceName === 'string' ? ` of the space ${inherited.spaceName}, which started this run` : '';
    return `${does}${scope ? `; asked by ${scope}${whose}` : ''}`;
  }
  const reason = KIND_REASONS[approval.kind] ?? approval.title;
  const detail = asString(request.reason);
  return detail ? `${reason}: ${detail}` : reason;
}
