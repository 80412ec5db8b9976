import type { Kysely } from 'kysely';
import { runGit } from '../../git/run-git.js';
import { listMessages } from '../../store/repositories/message-repository.js';
import { listPlans } from '../../store/repositories/plan-repository.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';
import { looksLikeTestCommand, type ChangedFile, type ConversationFacts, type TestCommand } from './pull-request-text.js';

/** Plans whose steps were agreed on: a rejected or superseded plan is not what the branch carries. */
const AGREED_PLAN = new Set(['approved', 'executing', 'completed', 'failed', 'cancelled']);

/**
 * The files between `baseSha` and `headSha` of the user's repository, counted by git (renames as a
 * removal and an addition, so a path is always one path). Diff drivers and text conversions are
 * off: the counts are of the bytes, and nothing the branch's attributes name runs.
 */
export async function changedFiles(repoPath: string, baseSha: string, headSha: string): Promise<ChangedFile[]> {
  const { stdout } = await runGit(['diff', '--numstat', '-z', '--no-renames', '--no-ext-diff', '--no-textconv'], { cwd: repoPath, operands: [baseSha, headSha] });
  const files: ChangedFile[] = [];
  for (const entry of stdout.split('\0')) {
    const match = /^(\d+|-)\t(\d+|-)\t([\s\S]+)$/.exec(entry);
    if (!match) continue;
    files.push({ path: match[3]!, added: match[1] === '-' ? null : Number(match[1]), removed: match[2] === '-' ? null : Number(match[2]) });
  }
  return files;
}

/** The shell commands of the conversation's runs that look like test runs, oldest first. */
async function testCommands(db: Kysely<WorkspaceSchema>, conversationId: string): Promise<TestCommand[]> {
  const calls = await db
    .selectFrom('tool_calls')
    .innerJoin('runs', 'runs.id', 'tool_calls.run_id')
    .select(['tool_calls.input', 'tool_calls.is_error', 'tool_calls.executed'])
    .where('runs.conversation_id', '=', conversationId)
    .where('tool_calls.name', 'in', ['bash', 'Bash', 'shell', 'exec_command', 'run_shell_command'])
    .orderBy('tool_calls.started_at', 'asc')
    .limit(2000)
    .execute();
  const tests: TestCommand[] = [];
  for (const call of calls) {
    let command: unknown;
    try {
      command = (JSON.parse(call.input) as { command?: unknown }).command;
    } catch {
      continue;
    }
    const text = Array.isArray(command) ? command.join(' ') : command;
    if (typeof text !== 'string' || !looksLikeTestCommand(text)) continue;
    tests.push({ command: text, outcome: !call.executed ? 'not run' : call.is_error ? 'failed' : 'passed' });
  }
  return tests;
}

/** The latest finalized review of the branch (a review opened on `cc/<conversation>` or in the conversation), and its gates. */
async function latestReview(db: Kysely<WorkspaceSchema>, conversationId: string, headBranch: string): Promise<Pick<ConversationFacts, 'review' | 'gates'>> {
  const row = await db
    .selectFrom('reviews')
    .select(['id', 'head_sha', 'verdict_json', 'round'])
    .where((where) => where.or([where('conversation_id', '=', conversationId), where('head_ref', 'in', [headBranch, `refs/heads/${headBranch}`])]))
    .where('verdict_json', 'is not', null)
    .orderBy('updated_at', 'desc')
    .executeTakeFirst();
  if (!row?.verdict_json) return { review: null, gates: [] };
  let verdict: { verdict?: unknown; headline?: unknown };
  try {
    verdict = JSON.parse(row.verdict_json) as typeof verdict;
  } catch {
    return { review: null, gates: [] };
  }
  const gates = await db.selectFrom('review_gate_results').select(['name', 'status']).where('review_id', '=', row.id).where('head_sha', '=', row.head_sha).orderBy('name').execute();
  return {
    review: typeof verdict.verdict === 'string' ? { verdict: verdict.verdict, headline: typeof verdict.headline === 'string' ? verdict.headline : null, round: Number(row.round) } : null,
    gates,
  };
}

/** Everything a pull request's text is written from, read from the workspace and the user's repository. */
export async function conversationFacts(
  db: Kysely<WorkspaceSchema>,
  input: { conversationId: string; conversationTitle: string; repoPath: string; baseSha: string; headSha: string; headBranch: string },
): Promise<ConversationFacts> {
  const firstAsk = (await listMessages(db, input.conversationId)).find((message) => message.role === 'user' && message.authorKind === 'operator');
  const plan = (await listPlans(db, input.conversationId, 20)).find((candidate) => AGREED_PLAN.has(candidate.status));
  const { review, gates } = await latestReview(db, input.conversationId, input.headBranch);
  return {
    conversationTitle: input.conversationTitle,
    goal: firstAsk?.content ?? null,
    plan: plan ? { goal: plan.submission.goal, steps: plan.submission.nodes.map((node) => node.title) } : null,
    files: await changedFiles(input.repoPath, input.baseSha, input.headSha),
    tests: await testCommands(db, input.conversationId),
    gates,
    review,
  };
}
