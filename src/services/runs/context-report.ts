import type { ContextUsage } from '../../harness/context-window.js';

const percent = (part: number, whole: number) => (whole > 0 ? `${Math.round((part / whole) * 100)} %` : '—');

/**
 * CTX-1 `/context`: what fills the window, in estimated tokens, as the conversation's last turn of
 * the built-in harness sent it — system prompt, skills, tools, history, tool results — against the
 * budget. Null usage: no such turn ran here yet.
 */
export function contextReport(usage: ContextUsage | null): string {
  if (!usage) return 'Context: no turn of the built-in harness has run in this conversation yet, so nothing has been sent to a model.';
  const line = (label: string, tokens: number) => `- ${label}: ${tokens} tokens (${percent(tokens, usage.budget)})`;
  return [
    `Context — what filled the window at the last turn's final request (estimated tokens; budget ${usage.budget}):`,
    line('system prompt', usage.system),
    line('skills', usage.skills),
    line('tools', usage.tools),
    line('history', usage.history),
    line(`tool results${usage.elidedResults > 0 ? ` (${usage.elidedResults} elided to stubs)` : ''}`, usage.toolResults),
    `Total: ${usage.total} tokens, ${percent(usage.total, usage.budget)} of the budget. /compact [focus] replaces older turns by a summary.`,
  ].join('\n');
}
