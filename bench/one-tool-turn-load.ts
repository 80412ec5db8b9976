/**
 * NF-SCALE: what the agent-run benches (`runs-queue` on PostgreSQL workers, `runs-embedded`
 * on one SQLite `serve`) share — the same tool turn against the scripted model and the same CPU reading.
 */
import { readFile } from 'node:fs/promises';
import { reply } from '../test/support/scripted-reply.js';

const CLOCK_TICKS_PER_S = 100;

/**
 * Whichever run asks: its first call gets a `todo` tool call, its second the answer (two model calls
 * per run). Only this turn's results count: earlier turns' are in the history too (CTX-1).
 */
export function oneToolTurn() {
  return reply((request) => (request.toolResults.length === 0 && request.toolNames.includes('todo') ? reply().tool('todo', { todos: [{ content: 'bench', status: 'pending' }] }) : reply().text('done')));
}

/** User + system CPU of a process so far, in ms (Linux /proc). */
export async function cpuMs(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_S) * 1_000;
}
