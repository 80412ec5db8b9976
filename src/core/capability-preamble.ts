import type { CapabilityProfile } from './capability-profiles.js';
import type { ToolDescriptor } from './tool-descriptor.js';

/**
 * The system-prompt block of a mode (CAP-1e): generated from the materialized tool list so it names
 * only tools that are on the surface (CAP-7), followed by the profile's hand-written guidance. Tool
 * names appear only in backticks, and only in the generated part; the guidance never names a tool, so
 * a tool missing from this run's registry is never promised to the model.
 */
export function buildCapabilityPreamble(
  profile: CapabilityProfile,
  surfacedTools: readonly ToolDescriptor[],
  /** `runnerToolsOnly`: an external runner that gets none of the product tools, only its own (the Grok CLI). */
  options: { runnerToolsOnly?: boolean } = {},
): string {
  const names = surfacedTools.map((tool) => tool.name);
  const surfaced = new Set(names);
  const lines: string[] = [`## Mode: ${profile.label}`];

  lines.push(
    profile.worktree === 'readOnly'
      ? 'The worktree is read-only in this mode: nothing you run may create, change or delete files, commit, push, install packages or start processes. Reading, searching and research are what this mode is for.'
      : 'The worktree is writable in this mode. Actions the workspace policy gates wait for an operator decision before they run.',
  );

  if (options.runnerToolsOnly) {
    lines.push('The Control Center offers no tools in this session; you have only your own file and shell tools.');
  } else if (names.length === 0) {
    lines.push('No tools are available in this mode.');
  } else {
    lines.push(`Tools available in this mode (${names.length}): ${names.map((name) => `\`${name}\``).join(', ')}.`);
    lines.push('Only these tools exist here; a tool not listed cannot be called.');
  }

  if (profile.outputVerb !== null) {
    lines.push(
      surfaced.has(profile.outputVerb)
        ? `Your deliverable in this mode is a call to \`${profile.outputVerb}\`; end the run with it.`
        : options.runnerToolsOnly
          ? "This mode's deliverable tool is not available in this session: give the deliverable as your final answer instead."
          : "This mode's deliverable tool is not available in this session: explain that you cannot deliver here and stop.",
    );
  }

  const optional = profile.optionalVerbs.filter((verb) => surfaced.has(verb));
  if (optional.length > 0) {
    lines.push(`Optional deliverables: ${optional.map((name) => `\`${name}\``).join(', ')}; calling none of them is acceptable.`);
  }

  lines.push('', profile.guidance);
  return lines.join('\n');
}
