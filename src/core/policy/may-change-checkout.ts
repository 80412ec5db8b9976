import type { EffectClass } from '../effect-classes.js';
import type { ShellClassification } from '../shell/classify-command.js';
import type { ToolDescriptor } from '../tool-descriptor.js';

/** Classes that reach outside without touching the checkout's files: reading the web, reading a secret. */
const CHECKOUT_NEUTRAL_CLASSES: ReadonlySet<EffectClass> = new Set(['networkEgress', 'secretAccess']);

/**
 * CTX-3: whether one call the gate has decided may change the conversation's checkout, so the turn's
 * checkpoint must exist before it runs. Read from what the gate already computed for the call — its
 * effect classes, and for a shell line the classifier's reading — and conservative: only a call known
 * to read gets `false`. A shell line reads only when the classifier understood all of it and found no
 * class and no worktree write (`true`, `ls`, `cat`, `git status`); any class, a write or unseen code
 * counts. A tool reads only when it is read-tier (or writes Control Center records only), writes no
 * worktree file, starts no run (a subagent works in this checkout) and causes no class beyond network
 * egress or secret access.
 */
export function mayChangeCheckout(
  tool: Pick<ToolDescriptor, 'tier' | 'writesWorktree' | 'recordsOnly' | 'startsRuns'>,
  call: { classes: readonly EffectClass[]; classification?: Pick<ShellClassification, 'classes' | 'writesWorktree' | 'unknown'> },
): boolean {
  const shell = call.classification;
  if (shell) return shell.unknown || shell.writesWorktree || shell.classes.length > 0 || call.classes.length > 0;
  if (tool.writesWorktree || tool.startsRuns === true) return true;
  if (tool.tier !== 'read' && tool.recordsOnly !== true) return true;
  return call.classes.some((effectClass) => !CHECKOUT_NEUTRAL_CLASSES.has(effectClass));
}
