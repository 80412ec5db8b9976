/**
 * CTX-1 stage 2: what the model is asked when older turns are compacted. The summary replaces them,
 * so it must carry everything the work still depends on.
 */
/**
 * What the summary is for, said in the request's last user message: the request keeps the run's own
 * system prompt and tools, so it starts with the prefix the run's calls sent and the provider's prompt
 * cache serves it (a system prompt of its own would change the prefix from its first token).
 */
const COMPACTION_TASK = `You now write the hand-over summary of this conversation. The conversation so far will be
replaced by your summary, and the same agent will continue the work from it alone, so keep everything
it still needs and nothing else.`;

export function compactionInstruction(focus: string | null): string {
  return [
    COMPACTION_TASK,
    '',
    'Summarize the conversation above for the agent that continues it. Keep, under these headings:',
    '1. Requests: every request the user made, in their own words where they are short, and which are done.',
    '2. Decisions: what was decided and why (approaches chosen or rejected, constraints learned).',
    '3. Files: every file read, created or changed, with what matters about each.',
    '4. Open todos: what is left to do, in order.',
    '5. Errors and fixes: errors met and how they were fixed (or that they are not yet).',
    '6. Where the work stands: the last thing done and the next step.',
    ...(focus ? [`Pay particular attention to: ${focus}`] : []),
    'Write the summary only, without calling tools.',
  ].join('\n');
}

/** The user message that stands in for the compacted turns. */
export function summaryMessageText(summary: string, preserved: string[]): string {
  return [
    '[Context compacted — summary of the conversation before this point, written when it no longer fit the context window]',
    '',
    summary.trim(),
    ...preserved.flatMap((text) => ['', text]),
  ].join('\n');
}
