import { sql, type Kysely } from 'kysely';
import type { Space } from '../../schemas/space.js';
import { RunLiveness, RunState, type Run } from '../../schemas/run.js';
import type { WorkspaceSchema } from '../workspace-schema.js';
import { reusableQuery } from '../reusable-query.js';
import { enumColumn } from './column-parsers.js';
import { toAgentRecord, type AgentRecord } from './agent-repository.js';
import { joinedSpace } from './conversation-repository.js';

const parseState = enumColumn('runs', 'state', RunState.options);
const parseLiveness = enumColumn('runs', 'liveness', RunLiveness.options);

/** What a posted turn reads before it is written (see {@link readPostedTurn}). */
export interface PostedTurnReads {
  /** The conversation's title (an untitled one is named after its first message). */
  conversationTitle: string;
  /** The conversation's space; null when its row is gone. */
  space: Space | null;
  spaceId: string;
  /**
   * Whether a turn of the conversation (a run without a parent) is queued or running. False means no
   * turn can take the message as steering; true only says the steering's own read is worth making.
   */
  turnGoing: boolean;
  /**
   * The addressed agent, with the facts its state is derived from (AG-3): its newest run (null: it
   * never ran) and whether any of its runs is running. Null when the agent it falls to does not exist.
   */
  agent: { record: AgentRecord; newest: Pick<Run, 'state' | 'liveness'> | null; anyRunning: boolean } | null;
}

/**
 * Everything a posted turn reads before its write, in ONE statement (NF-SCALE, bursts: on PostgreSQL
 * each statement is a round trip and a wake-up of the API process and the database, and these were
 * four): the conversation, its space, whether a turn of it is going, and the agent the message
 * addresses with its newest run and whether any of its runs is running (AG-3).
 *
 * The agent is chosen as the separate reads chose it: the agent `mentioned` by name if there is one,
 * else `agentId`, else the space's default agent, else `ceo`, else the oldest agent. `coalesce`
 * stops at the first choice that is set, so an `agentId` (or default) that names no agent gives no
 * agent rather than the next choice: the caller answers 404 for that id. Empty strings stand for
 * "none" (reusable queries take strings; agent names and ids are never empty).
 *
 * Only the run columns the state needs are read, not whole rows. "A turn is going" reads the
 * conversation's runs through `runs_by_conversation`, all of them (not only the newest 50 the
 * steering looks at): a superset, so it is never false where the steering would find a going turn.
 */
const postedTurnReads = reusableQuery((db, conversationId: string, mentioned: string, agentId: string) =>
  db
    .selectFrom('conversations as c')
    .leftJoin('spaces as s', 's.id', 'c.space_id')
    .leftJoin('agents as a', (join) =>
      join.on(({ eb, fn, selectFrom }) =>
        eb(
          'a.id',
          '=',
          fn.coalesce(
            selectFrom('agents as named').select('named.id').where('named.name', '=', mentioned).limit(1),
            fn<string | null>('nullif', [eb.val(agentId), eb.val('')]),
            eb.ref('s.default_agent_id'),
            selectFrom('agents as ceo').select('ceo.id').where('ceo.name', '=', 'ceo').limit(1),
            selectFrom('agents as oldest').select('oldest.id').orderBy('oldest.created_at').orderBy('oldest.id').limit(1),
          ),
        ),
      ),
    )
    .select([
      'c.title as conversation_title',
      'c.space_id as conversation_space_id',
      's.id as space_id',
      's.name as space_name',
      's.kind as space_kind',
      's.mode as space_mode',
      's.autonomy as space_autonomy',
      's.default_agent_id as space_default_agent_id',
      's.repo_path as space_repo_path',
      's.created_at as space_created_at',
      's.updated_at as space_updated_at',
      's.archived_at as space_archived_at',
      'a.id as agent_id',
      'a.workspace_id as agent_workspace_id',
      'a.name as agent_name',
      'a.title as agent_title',
      'a.persona as agent_persona',
      'a.system_prompt as agent_system_prompt',
      'a.skills as agent_skills',
      'a.adapter_id as agent_adapter_id',
      'a.model_id as agent_model_id',
      'a.effort as agent_effort',
      'a.context_size as agent_context_size',
      'a.silence_timeout_minutes as agent_silence_timeout_minutes',
      'a.reports_to as agent_reports_to',
      'a.acp_command as agent_acp_command',
      'a.created_at as agent_created_at',
      'a.updated_at as agent_updated_at',
    ])
    .select(({ exists, selectFrom }) => [
      exists(
        selectFrom('runs as going')
          .select('going.id')
          .whereRef('going.conversation_id', '=', 'c.id')
          .where('going.parent_run_id', 'is', null)
          .where('going.state', 'in', ['queued', 'running']),
      ).as('turn_going'),
      // The newest run's state and liveness in one subquery (one text, split when read): its row is
      // found by the agent's latest creation time — the top of `runs_by_agent`, which PostgreSQL reads
      // as one index entry whatever its statistics say — then the greatest id among runs of that
      // time. Ordering all the agent's runs by (time, id) instead read every one of them while the
      // table had no statistics yet (a fresh workspace's first burst): 1,000 turns to one agent, quadratic.
      selectFrom('runs as newest')
        .select(sql<string>`${sql.ref('newest.state')} || ' ' || ${sql.ref('newest.liveness')}`.as('state_liveness'))
        .whereRef('newest.agent_id', '=', 'a.id')
        .where('newest.created_at', '=', selectFrom('runs as latest').select(({ fn }) => fn.max('latest.created_at').as('created_at')).whereRef('latest.agent_id', '=', 'a.id'))
        .orderBy('newest.id', 'desc')
        .limit(1)
        .as('newest_run'),
      exists(selectFrom('runs as busy').select('busy.id').whereRef('busy.agent_id', '=', 'a.id').where('busy.state', '=', 'running')).as('any_running'),
    ])
    .where('c.id', '=', conversationId),
);

/**
 * See {@link postedTurnReads}. `mentioned`: the agent named by an @mention (null: none); `agentId`:
 * the agent the message names by id (null: none). Null when the conversation does not exist.
 */
export async function readPostedTurn(
  db: Kysely<WorkspaceSchema>,
  workspaceId: string,
  input: { conversationId: string; mentioned: string | null; agentId: string | null },
): Promise<PostedTurnReads | null> {
  const [row] = await postedTurnReads(db, input.conversationId, input.mentioned ?? '', input.agentId ?? '');
  if (!row) return null;
  const space = joinedSpace(row.space_id, row, workspaceId);
  let agent: PostedTurnReads['agent'] = null;
  if (row.agent_id !== null) {
    const record = toAgentRecord({
      id: row.agent_id,
      workspace_id: row.agent_workspace_id!,
      name: row.agent_name!,
      title: row.agent_title!,
      persona: row.agent_persona!,
      system_prompt: row.agent_system_prompt,
      skills: row.agent_skills!,
      adapter_id: row.agent_adapter_id,
      model_id: row.agent_model_id,
      effort: row.agent_effort,
      context_size: row.agent_context_size,
      silence_timeout_minutes: row.agent_silence_timeout_minutes,
      reports_to: row.agent_reports_to,
      acp_command: row.agent_acp_command,
      created_at: row.agent_created_at!,
      updated_at: row.agent_updated_at!,
    });
    const newestKey = `newest of agent ${row.agent_id}`;
    const [state, liveness] = row.newest_run === null ? [] : row.newest_run.split(' ');
    const newest = state === undefined || liveness === undefined ? null : { state: parseState(state, newestKey), liveness: parseLiveness(liveness, newestKey) };
    // SQLite answers EXISTS with 0/1, PostgreSQL with a boolean.
    agent = { record, newest, anyRunning: Boolean(row.any_running) };
  }
  return { conversationTitle: row.conversation_title, space, spaceId: row.conversation_space_id, turnGoing: Boolean(row.turn_going), agent };
}
