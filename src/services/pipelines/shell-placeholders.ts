import { resolvePlaceholders } from '../../core/pipelines/placeholders.js';
import { PermanentNodeError } from './node-executor.js';

/**
 * A `bashScript`'s placeholders (PIPE-1) never become shell syntax: upstream outputs are agent text,
 * hostile by default. Each `{{…}}` is replaced by a quoted variable reference (`"${CC_PIPELINE_0}"`)
 * and its value travels in the environment, so `$(…)`, quotes or newlines in an output stay data —
 * except where bash itself evaluates a value (arithmetic: `(( "${CC_PIPELINE_0}" > 3 ))` runs the
 * `$(…)` of `a[$(…)]`), which is why the policy check is told these names (SEC-5).
 */
export function scriptWithPlaceholderEnv(script: string, sources: ReadonlyMap<string, unknown>): { script: string; env: Record<string, string> } {
  const env: Record<string, string> = {};
  let index = 0;
  const unresolved: string[] = [];
  const rewritten = script.replace(/\{\{[^{}]*\}\}/g, (placeholder) => {
    const resolved = resolvePlaceholders(placeholder, sources);
    if (!resolved.ok) {
      unresolved.push(placeholder);
      return placeholder;
    }
    const name = `CC_PIPELINE_${index}`;
    index += 1;
    env[name] = resolved.text;
    return `"\${${name}}"`;
  });
  if (unresolved.length > 0) throw new PermanentNodeError(`unresolved placeholder(s): ${unresolved.join(', ')}`);
  return { script: rewritten, env };
}
