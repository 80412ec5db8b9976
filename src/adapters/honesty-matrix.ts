import { getCapabilityProfile } from '../core/capability-profiles.js';
import { MODES, type Mode } from '../core/modes.js';
import { CURSOR_CAPABILITIES } from './cursor/cursor-capabilities.js';
import { GROK_CAPABILITIES } from './grok/grok-capabilities.js';
import type { TransportCapabilities } from './transport-capabilities.js';

/**
 * How much of a capability the Control Center really enforces on a transport (ADP-1);
 * `notApplicable` where the capability does not exist on the transport (nothing to enforce, TRUTH-2).
 */
export type EnforcementLevel = 'enforced' | 'partial' | 'none' | 'notApplicable';

/** The questions ADP-1 asks of every transport. */
export const HONESTY_CAPABILITIES = {
  toolSurface: 'filters the tool surface',
  shellCommands: 'intercepts shell commands',
  fileWrites: 'intercepts native file writes',
  reads: 'intercepts native reads',
  productTools: 'intercepts product (MCP) tools',
  pushes: 'intercepts git pushes',
  completionContract: 'observes the completion contract',
  nativeTools: 'sees the runner’s native tools',
  sandbox: 'sandboxes in-process tools',
  modes: 'how the mode is passed',
  skills: 'shows only scanned skills',
  webEgress: 'applies domain rules to its web tools',
  attachments: 'carries image attachments',
  operatorMcpServers: 'reaches operators’ MCP servers only through the gate',
} as const;

export type HonestyCapability = keyof typeof HONESTY_CAPABILITIES;

/** Which sandbox the host gives a run (the sandbox rows, and the built-in harness's push rows, depend on it). */
export type HostSandbox = 'bubblewrap' | 'seatbelt' | 'none';

/** One cell: a capability (per mode or per host where it differs), its level, why, and the test that shows it. */
export interface HonestyRow {
  /** Stable key of the capability. */
  key: HonestyCapability;
  /** The capability in words (with the host for the host-dependent sandbox rows), as the UI shows it. */
  capability: string;
  mode?: Mode;
  /** For host-dependent rows (sandbox; the built-in harness's pushes): the host situation the row describes. */
  host?: HostSandbox;
  level: EnforcementLevel;
  detail: string;
  /** `<test file> > <describe> > <it>`: the test that demonstrates this cell (checked by a test). */
  testedBy: string;
}

export interface AdapterHonesty {
  id: string;
  label: string;
  rows: HonestyRow[];
}

export interface HonestyMatrix {
  adapters: AdapterHonesty[];
}

type RowInput = Omit<HonestyRow, 'key' | 'capability'> & { capability: HonestyCapability };

function row(input: RowInput): HonestyRow {
  const words = HONESTY_CAPABILITIES[input.capability];
  return { ...input, key: input.capability, capability: input.host ? `${words} (host: ${input.host})` : words };
}

const GATING = 'test/adapters/claude-code-gating.test.ts';
const HOOK = 'test/adapters/claude-code-hook.test.ts';
const SANDBOX = 'test/adapters/claude-code-sandbox.test.ts';
const PUSH = 'test/adapters/git-push-proxy.test.ts';
const CREDENTIALS = 'test/security/credential-brokering.test.ts';
const ARGS = 'test/adapters/claude-code-args.test.ts';

const ORCHESTRATE_FLOW = 'test/services/orchestrations/orchestration-flow.test.ts > orchestrate mode end to end (ORC-1..4, AG-7)';
/** HAR-4 for every external runner: delivered is the host's MCP record of the verb, never the runner's report. */
const FORGERY = 'test/security/output-verb-forgery.test.ts';
const SILENT_ORCHESTRATION = `${FORGERY} > HAR-4 forgery: the same record decides propose_orchestration in orchestrate (security) > orchestrate: a propose_orchestration made on the MCP server but never reported is counted`;
/** The sentence every external runner's contract row starts with. */
const HOST_RECORD = 'Delivered is what the host saw: the Control Center MCP server records the output verb it executed successfully for the run (called with the run’s token); the runner’s own report of the call decides nothing, and a report without the call is logged as a protocol error.';

const PLAN_E2E = `${GATING} > Claude Code transport in plan mode (ADP-3)`;
const READ_ONLY_WRITES = 'test/adapters/claude-read-only-mode-writes.test.ts';
/** A run of the real CLI in review (as a reviewer) or orchestrate whose Write and Bash redirect are refused. */
const CLAUDE_READ_ONLY_WRITES = {
  review: `${READ_ONLY_WRITES} > Claude Code CLI: native writes in review and orchestrate (CAP-5) > review: as a reviewer, a native Write and a Bash redirect are refused and leave no file`,
  orchestrate: `${READ_ONLY_WRITES} > Claude Code CLI: native writes in review and orchestrate (CAP-5) > orchestrate: a native Write and a Bash redirect are refused and leave no file`,
} as const;
const SDK_READ_ONLY_WRITES = {
  review: `${READ_ONLY_WRITES} > Claude Agent SDK: native writes in review and orchestrate (CAP-5) > review: as a reviewer, a native Write and a Bash redirect are refused by the host and leave no file`,
  orchestrate: `${READ_ONLY_WRITES} > Claude Agent SDK: native writes in review and orchestrate (CAP-5) > orchestrate: a native Write and a Bash redirect are refused by the host and leave no file`,
} as const;
const CHAT_E2E = `${GATING} > Claude Code transport in chat mode (ADP-3)`;

const BUILTIN_SANDBOX = 'test/harness/builtin-sandbox.test.ts';
const REPO_SKILLS = 'test/services/skills/repo-skills.test.ts > linked repositories and their skills (SKL-4, SKL-5)';
const SDK_SKILLS = 'test/adapters/claude-agent-sdk-skills.test.ts > the Claude Agent SDK sees exactly the scanned skills (SKL-5)';
const CLAUDE_SKILLS = 'test/adapters/claude-code-skills.test.ts > Claude Code sees the scanned skills (SKL-5)';
const ACP_SKILLS = 'test/adapters/acp-skills.test.ts > an ACP agent sees the scanned skills (SKL-5, RLY-7)';
const CODEX_SKILLS = 'test/adapters/codex-skills.test.ts > Codex sees exactly the scanned skills (SKL-5)';
const BUILTIN_PUSH = `${BUILTIN_SANDBOX} > built-in bash pushes through the push proxy (POL-6)`;
const SEATBELT_TEXT = `${SANDBOX} > Seatbelt profile (SBX-1, macOS) > generates a profile that denies writes outside the writable paths and limits the network to loopback ports`;

/** The built-in `bash` runs each command in the host's OS sandbox, the Claude Code backend (SBX-1). */
function builtinSandboxRows(): HonestyRow[] {
  return [
    row({
      capability: 'sandbox',
      host: 'bubblewrap',
      level: 'enforced',
      detail:
        'Linux with bwrap and socat: every bash command runs in bubblewrap with capabilities dropped: the rest of the filesystem read-only, the workspace, the data root (operator token, databases) and the server user’s home hidden, a private /tmp (HOME), the conversation’s own checkout (a clone whose `.git` is its own) writable in chat and read-only in read-only modes, `.git` included, the user’s repository visible only as its read-only object store, mounts computed from the server’s checkout record and never from files in the worktree (SEC-3), and the host network by default (egress is decided per command by the policy engine, CAP-4; `--shell-network loopback` gives a namespace whose only exit is the push proxy’s relayed port). The file tools run in the server process and resolve every path through held directory descriptors, so a swapped symlink cannot race them out of the worktree (HAR-7, SEC-4). The run log’s sandbox line says which applied. It bounds; it does not gate (SBX-3).',
      testedBy: `${BUILTIN_SANDBOX} > built-in bash in bubblewrap (SBX-1) > a write outside the worktree fails at the OS level even when the policy allows it; the operator token is unreadable`,
    }),
    row({
      capability: 'sandbox',
      host: 'seatbelt',
      level: 'partial',
      detail: 'macOS: each bash command runs under a Seatbelt profile generated from the same spec (writes limited to the worktree and /tmp; network as `--shell-network` says). Only the profile’s text is tested: no macOS host runs these tests.',
      testedBy: SEATBELT_TEXT,
    }),
    row({
      capability: 'sandbox',
      host: 'none',
      level: 'partial',
      detail:
        'No backend (Windows, Linux without working bwrap/socat): bash runs in the server’s user, in the worktree, with a sanitized environment, and the run log says `none: …`. Every call is still gated first and the file tools refuse paths outside the worktree, but nothing bounds what an approved command reads or writes.',
      testedBy: `${BUILTIN_PUSH} > without a sandbox backend the run records none: and pushes still go through the proxy (SBX-2)`,
    }),
  ];
}

/** Pushes from the built-in `bash`: the command line is decided, and git itself goes through the push proxy (POL-6). */
function builtinPushRows(): HonestyRow[] {
  const routing =
    'A `git push` typed in a command line is classified gitPush and decided before it runs. Every bash command’s git config (environment, not the repository) also routes pushes to the worktree’s remotes through the push proxy with a run-scoped token, which decides the real ref updates as `git push <remote> <refs>` (ask → approval, fail closed) before the remote receives anything — so a push inside a script is caught. A fetch of a remote on the workspace’s configured forge goes through the same proxy, which reads the forge with the workspace’s token: the command holds only the run token (`test/security/forge-read-through-proxy.test.ts`).';
  return [
    row({
      capability: 'pushes',
      host: 'bubblewrap',
      level: 'partial',
      detail: `${routing} In bubblewrap the command cannot write the remotes’ paths. With the default host network (egress is decided per command by policy), a script that pushes over the network to an ad-hoc URL or a remote with an explicit pushurl is not stopped; with \`--shell-network loopback\` it has no exit but the proxy.`,
      testedBy: `${BUILTIN_PUSH} > a push inside a script is held for approval and reaches the bare remote only once approved`,
    }),
    row({
      capability: 'pushes',
      host: 'seatbelt',
      level: 'partial',
      detail: `${routing} With the default host network a script can push to an ad-hoc URL; with \`--shell-network loopback\` the Seatbelt profile limits the network to loopback, but only its text is tested.`,
      testedBy: SEATBELT_TEXT,
    }),
    row({
      capability: 'pushes',
      host: 'none',
      level: 'partial',
      detail: `${routing} Without a sandbox nothing stops a script that pushes to an ad-hoc URL, to a remote with an explicit pushurl, or with the git environment unset.`,
      testedBy: `${BUILTIN_PUSH} > without a sandbox backend the run records none: and pushes still go through the proxy (SBX-2)`,
    }),
  ];
}

/** The built-in harness (ADP-2): every call of every tool passes the one chokepoint. */
function builtinRows(): HonestyRow[] {
  const runs = 'test/harness/agent-run.test.ts > built-in harness runs (HAR-1, HAR-3, HAR-6)';
  const approvals = 'test/harness/approvals-and-control.test.ts > approvals (POL-4, POL-7)';
  return [
    row({
      capability: 'toolSurface',
      level: 'enforced',
      detail: 'The surface is built from the mode’s profile; a tool off the surface is invisible to the model and refused if called (HAR-3).',
      testedBy: `${runs} > a tool that is not on the surface is invisible: calling it returns an error and nothing runs (HAR-3)`,
    }),
    row({
      capability: 'shellCommands',
      level: 'enforced',
      detail: 'Every bash call is classified per subcommand and decided by the policy engine before it runs; ask waits for the operator, fail closed.',
      testedBy: `${approvals} > ask → approve: the call waits for the operator, then runs; the rule that asked is recorded`,
    }),
    row({
      capability: 'fileWrites',
      level: 'enforced',
      detail: 'write/edit are the harness’s own tools: gated like every call, and paths that leave the worktree are refused (HAR-7).',
      testedBy: `${runs} > paths that leave the worktree are refused (HAR-7)`,
    }),
    row({
      capability: 'reads',
      level: 'enforced',
      detail: 'read/list/glob/grep are the harness’s own tools: every call passes the chokepoint, and reads outside the worktree are refused.',
      testedBy: 'test/worktree/node-worktree.test.ts > NodeWorktree path rules (HAR-7) > refuses reading through a symlinked file that points outside',
    }),
    row({
      capability: 'productTools',
      level: 'enforced',
      detail: 'Product tools run in-process through the same chokepoint (policy, approval, pinned verbs).',
      testedBy: `${runs} > a multi-step run reads, edits and runs a command, then answers; everything is in the run log`,
    }),
    ...builtinPushRows(),
    row({
      capability: 'completionContract',
      mode: 'plan',
      level: 'enforced',
      detail: 'A plan run that ends without submit_plan is reminded, then flagged deliverableFailed; the state stays completed (HAR-4, PLAN-6).',
      testedBy: 'test/services/plans/plan-flow.test.ts > plan mode end to end (PLAN-1..8, MODE-4) > a plan-mode run that ends without submit_plan is reminded, then flagged; its state stays completed (PLAN-5, PLAN-6)',
    }),
    row({
      capability: 'completionContract',
      mode: 'orchestrate',
      level: 'enforced',
      detail: 'An orchestrate run that ends without propose_orchestration is reminded, then flagged deliverableFailed; the state stays completed (HAR-4, ORC-1).',
      testedBy: `${ORCHESTRATE_FLOW} > an orchestrate-mode run that ends without propose_orchestration is reminded, then flagged; its state stays completed`,
    }),
    row({
      capability: 'nativeTools',
      level: 'enforced',
      detail: 'There are no native tools: every tool is the harness’s own and every call is in the run log.',
      testedBy: `${runs} > a multi-step run reads, edits and runs a command, then answers; everything is in the run log`,
    }),
    ...builtinSandboxRows(),
    row({
      capability: 'modes',
      level: 'enforced',
      detail: 'The mode is structural: the surface, the action guard (mode floor), the prompt and the completion contract are all projections of the mode’s profile (CAP-2).',
      testedBy: 'test/tools/builtin-tools.test.ts > builtin tool registry > surfaces only read tools in plan mode and everything in chat (HAR-3)',
    }),
  ];
}

function claudeSandboxRows(): HonestyRow[] {
  return [
    row({
      capability: 'sandbox',
      host: 'bubblewrap',
      level: 'enforced',
      detail:
        'Linux with bwrap and socat: the CLI and everything it starts run in bubblewrap with capabilities dropped: the rest of the filesystem read-only, the data root (operator token, databases) and the server user’s home hidden, private /tmp and HOME, the conversation’s own checkout (a clone whose `.git` is its own) writable in chat and read-only in read-only modes, `.git` included, with mounts computed from the server’s checkout record, never from files in the worktree (SEC-3), and a network namespace whose only exits are relayed loopback ports (the Control Center: MCP, hooks, push proxy and the model proxy, which adds the real model key; SEC-6). It bounds; it does not gate (SBX-3).',
      testedBy: `${SANDBOX} > bubblewrap sandbox (SBX-1) > inside bubblewrap a write outside the worktree fails at the OS level`,
    }),
    row({
      capability: 'sandbox',
      host: 'seatbelt',
      level: 'partial',
      detail: 'macOS: a Seatbelt profile is generated (writes limited to the worktree and per-run directories, loopback-only network). Only its text is tested: no macOS host runs these tests.',
      testedBy: `${SANDBOX} > Seatbelt profile (SBX-1, macOS) > generates a profile that denies writes outside the writable paths and limits the network to loopback ports`,
    }),
    row({
      capability: 'sandbox',
      host: 'none',
      level: 'none',
      detail:
        'No backend (Windows, Linux without working bwrap/socat): Claude Code does not start (the run fails saying why) unless the operator started the server with `--allow-unsandboxed-runners` (SEC-6). With that opt-in: the SBX-2 fallback — sanitized environment with no real credential (the model is reached through the model proxy with the run token), private HOME, pushes through the proxy — and `none: …` in the run log. Nothing bounds what a native tool reads or writes: it runs as the server’s user and can read the operator token.',
      testedBy: `${CREDENTIALS} > unsandboxed Claude Code needs the operator opt-in (SEC-6) > without a sandbox and without the opt-in the run fails with the reason and never starts the CLI`,
    }),
  ];
}

/** Claude Code (ADP-3): what the hook, the MCP server, the push proxy and the sandbox really cover. */
function claudeCodeRows(): HonestyRow[] {
  return [
    row({
      capability: 'toolSurface',
      mode: 'chat',
      level: 'partial',
      detail: 'Product tools: the MCP server offers only the mode’s surface. Native tools are not filtered in chat (EnterWorktree/ExitWorktree aside: the Control Center owns worktrees).',
      testedBy: `${ARGS} > claudeCodeArgs (ADP-3) > chat passes the skip flag and never plan mode, and removes only the worktree tools`,
    }),
    ...(['plan', 'review', 'orchestrate'] as const).map((mode) =>
      row({
        capability: 'toolSurface',
        mode,
        level: 'partial',
        detail:
          'Write, Edit, MultiEdit and NotebookEdit are removed (`--disallowedTools`); only the surfaced MCP tools are allowed (CAP-8: a tool missing from the allowlist is refused whether or not the server has it). Bash, Read, Grep, Glob, WebFetch, WebSearch, Agent and other natives stay on the surface.',
        testedBy:
          mode === 'plan'
            ? `${PLAN_E2E} > a scripted Write is refused, leaves no file, and Write is not offered to the model`
            : `${ARGS} > claudeCodeArgs (ADP-3) > every read-only mode passes --permission-mode plan, removes the mutating natives and never passes the skip flag`,
      }),
    ),
    row({
      capability: 'shellCommands',
      mode: 'chat',
      level: 'enforced',
      detail:
        'A PreToolUse hook sends every Bash command line (subagents’ too) to the run’s gate: policy engine, operator approval on ask, fail closed — a hook that cannot reach the server, errs or runs out of time denies (exit 2), because Claude Code runs the tool on any other hook failure.',
      testedBy: `${CHAT_E2E} > an ask rule holds a Bash command until the operator approves it`,
    }),
    row({
      capability: 'shellCommands',
      mode: 'plan',
      level: 'enforced',
      detail: 'Same hook; the plan mode floor denies every world-changing class, and the deny names the deciding rule.',
      testedBy: `${PLAN_E2E} > a scripted Bash rm -rf is denied by the hook, naming the deciding rule`,
    }),
    row({
      capability: 'shellCommands',
      level: 'enforced',
      detail: 'The hook fails closed when the Control Center is unreachable, answers an error, or does not answer in time.',
      testedBy: `${HOOK} > the transport driven directly with a hand-built run context > with the Control Center unreachable, the real CLI refuses the Bash command (the hook fails closed)`,
    }),
    row({
      capability: 'fileWrites',
      mode: 'chat',
      level: 'enforced',
      detail: 'Write, Edit, MultiEdit and NotebookEdit report their path to the hook before they run; the gate decides inside-worktree writes and fileWriteOutsideWorktree like built-in writes.',
      testedBy: `${CHAT_E2E} > a native Write outside the worktree is denied through the hook by a fileWriteOutsideWorktree rule`,
    }),
    ...(['plan', 'review', 'orchestrate'] as const).map((mode) =>
      row({
        capability: 'fileWrites',
        mode,
        level: 'enforced',
        detail: 'The write tools are removed; Bash writes are denied by the mode floor through the hook; with bubblewrap the worktree is also mounted read-only (CAP-5).',
        testedBy: mode === 'plan' ? `${PLAN_E2E} > a scripted Write is refused, leaves no file, and Write is not offered to the model` : CLAUDE_READ_ONLY_WRITES[mode],
      }),
    ),
    row({
      capability: 'reads',
      level: 'none',
      detail: 'Read, Grep, Glob, WebFetch and WebSearch run inside the CLI without asking the Control Center. Only the sandbox bounds what they can read (the data root and the server user’s home are hidden).',
      testedBy: `${PLAN_E2E} > a native Read is observed as a tool call but never reaches the hook`,
    }),
    row({
      capability: 'productTools',
      level: 'enforced',
      detail: 'submit_plan, ask_user and the other product tools are served by the Control Center’s MCP server with the run token; each call passes the built-in chokepoint (policy, approval, pinned verbs).',
      testedBy: `${PLAN_E2E} > submit_plan over the Control Center MCP server stores a plan`,
    }),
    row({
      capability: 'pushes',
      level: 'partial',
      detail:
        'A `git push` typed in Bash is decided by the hook. The runner’s git config (environment, not the repository) also routes every push to a configured remote through the push proxy, which decides it as a `git push <remote> <refs>` command line before git receives it and forwards it to the real remote only when allowed — so pushes from scripts are caught too. A script that pushes to an ad-hoc URL or a remote with an explicit pushurl skips both; without a sandbox nothing else stops it. A fetch of a remote on the workspace’s configured forge goes through the same proxy, which reads the forge with the workspace’s token; the CLI holds only its run token (`test/security/forge-read-through-proxy.test.ts`).',
      testedBy: `${PUSH} > git push proxy (POL-6) > a push is asked once, at the hook, and forwarded to the bare remote once approved (one approval per push)`,
    }),
    row({
      capability: 'completionContract',
      mode: 'plan',
      level: 'enforced',
      detail: `${HOST_RECORD} If the turn ends without it, a reminder is sent as the next stream-json user message (twice at most), then the run is flagged deliverableFailed.`,
      testedBy: `${PLAN_E2E} > a plan run that ends without submit_plan is reminded, then flagged deliverableFailed`,
    }),
    row({
      capability: 'completionContract',
      mode: 'orchestrate',
      level: 'partial',
      detail: `${HOST_RECORD} The same code as plan mode with propose_orchestration (the host’s record is tested with that verb through the ACP transport, tested against a fake ACP agent); no end-to-end run of the real CLI in orchestrate mode yet.`,
      testedBy: SILENT_ORCHESTRATION,
    }),
    row({
      capability: 'nativeTools',
      level: 'partial',
      detail: 'Every native call and result appears in the run log (tool_call_start/end, from the stream, subagents included) — after the fact. Only Bash and the write tools are decided before they run.',
      testedBy: `${PLAN_E2E} > a native Read is observed as a tool call but never reaches the hook`,
    }),
    ...claudeSandboxRows(),
    row({
      capability: 'modes',
      mode: 'chat',
      level: 'enforced',
      detail: 'Chat restricts nothing beyond policy: `--dangerously-skip-permissions` (the CLI asks nobody); the hook, the MCP server and the proxy apply the rules.',
      testedBy: `${CHAT_E2E} > an ask rule holds a Bash command until the operator approves it`,
    }),
    ...(['plan', 'review', 'orchestrate'] as const).map((mode) =>
      row({
        capability: 'modes',
        mode,
        level: 'partial',
        detail:
          '`--permission-mode plan` without the skip flag (in 2.1.197 the skip flag overrides plan mode, and a hook allow overrides its write refusal, so neither is ever combined with it). The CLI’s plan mode is advisory; the mode holds through the removed write tools, the hook’s policy decisions and the read-only mount.',
        testedBy: `${ARGS} > claudeCodeArgs (ADP-3) > every read-only mode passes --permission-mode plan, removes the mutating natives and never passes the skip flag`,
      }),
    ),
  ];
}

const SDK = 'test/adapters/claude-agent-sdk.test.ts';
const SDK_MODES = `${SDK} > Claude Agent SDK transport: one turn per relay mode (RLY-7)`;
const SDK_GATE = `${SDK} > Claude Agent SDK transport: the policy gate and the MCP server (POL-1)`;
const SDK_MODE_SWITCH = 'test/adapters/claude-relay-mode-switch.test.ts > Claude and DeepSeek: a mode switch applies from the next turn in a fresh process (seed 003, RLY-8, RLY-9)';
const SDK_PLAN_WRITE = `${SDK_MODES} > plan: a Write is refused by the host although the SDK’s plan mode would let it through, and a mutating command is denied by the mode floor`;

/** Claude Agent SDK (RLY-7): an in-process PreToolUse hook and canUseTool in front of every tool call. */
function claudeAgentSdkRows(): HonestyRow[] {
  return [
    row({
      capability: 'toolSurface',
      level: 'partial',
      detail:
        'Product tools: the MCP server offers only the mode’s surface, and the host refuses any mcp__ tool not on it. Native tools are not removed from the model’s surface (in plan the write tools are still offered and refused by the host when called); a native tool the host does not know is refused (fail closed). No settings file of the worktree is read (`settingSources: []`), so a hostile `.claude/settings.json` cannot add allow rules or hooks.',
      testedBy: SDK_PLAN_WRITE,
    }),
    row({
      capability: 'shellCommands',
      mode: 'chat',
      level: 'enforced',
      detail:
        'Every Bash call (subagents’ too) passes an in-process PreToolUse hook registered with `onFailure: block` that sends the command line to the run’s gate (policy engine, operator approval on ask, fail closed); `canUseTool` then allows only what the hook allowed. The host never uses bypassPermissions. Ask = autonomy askFirst: every call above read level waits for approval; Autopilot = actFreely: anything not denied runs.',
      testedBy: `${SDK_MODES} > ask: the system prompt carries the Ask sentences, and a command the operator denies is never executed`,
    }),
    row({
      capability: 'shellCommands',
      mode: 'plan',
      level: 'enforced',
      detail: 'Same hook; the plan mode floor denies every world-changing class, and the deny names the deciding rule.',
      testedBy: SDK_PLAN_WRITE,
    }),
    row({
      capability: 'fileWrites',
      mode: 'chat',
      level: 'enforced',
      detail: 'Write, Edit, MultiEdit and NotebookEdit pass the same hook with their path; the gate decides inside-worktree writes and fileWriteOutsideWorktree like built-in writes.',
      testedBy: `${SDK_GATE} > ask: a native Write waits for approval, and a rejected write leaves no file`,
    }),
    ...(['plan', 'review', 'orchestrate'] as const).map((mode) =>
      row({
        capability: 'fileWrites',
        mode,
        level: 'enforced',
        detail:
          'The host refuses every write tool before any gate (measured on SDK 0.3.332: the SDK’s plan permission mode lets a write through when the host allows it); Bash writes are denied by the mode floor through the hook; with bubblewrap the worktree is also mounted read-only.',
        testedBy: mode === 'plan' ? SDK_PLAN_WRITE : SDK_READ_ONLY_WRITES[mode],
      }),
    ),
    row({
      capability: 'reads',
      level: 'none',
      detail: 'Read, Grep, Glob, WebFetch and WebSearch are let through by name without asking the policy engine. Only the sandbox bounds what they can read (the data root and the server user’s home are hidden).',
      testedBy: `${SDK} > Claude Agent SDK transport in bubblewrap (SBX-1) > inside bubblewrap a write outside the worktree fails at the OS level and the data root is hidden`,
    }),
    row({
      capability: 'productTools',
      level: 'enforced',
      detail: 'The Control Center’s MCP server serves the product tools with the run token (sent over stdin, not argv); each call passes the built-in chokepoint (policy, approval, pinned verbs).',
      testedBy: `${SDK_GATE} > plan: submit_plan over the Control Center MCP server stores a plan and meets the completion contract`,
    }),
    row({
      capability: 'pushes',
      level: 'partial',
      detail:
        'The runner gets the same git environment as the Claude Code CLI (every push to a configured remote goes through the push proxy with the run token) and a `git push` typed in Bash is decided by the hook; the proxy itself is tested with the Claude Code CLI. A script pushing to an ad-hoc URL skips both; without a sandbox nothing else stops it.',
      testedBy: `${PUSH} > git push proxy (POL-6) > a push is asked once, at the hook, and forwarded to the bare remote once approved (one approval per push)`,
    }),
    row({
      capability: 'completionContract',
      mode: 'plan',
      level: 'enforced',
      detail: `${HOST_RECORD} If the turn ends without submit_plan a reminder goes in as the next streaming-input message (twice at most), then the run is flagged deliverableFailed.`,
      testedBy: `${SDK_GATE} > plan: a run that ends without submit_plan is reminded, then flagged deliverableFailed`,
    }),
    row({
      capability: 'completionContract',
      mode: 'orchestrate',
      level: 'partial',
      detail: `${HOST_RECORD} The same contract code as plan mode, with propose_orchestration as the verb: a turn ending without it is reminded, then flagged. Tested end to end in plan mode only.`,
      testedBy: `${SDK_GATE} > plan: a run that ends without submit_plan is reminded, then flagged deliverableFailed`,
    }),
    row({
      capability: 'nativeTools',
      level: 'partial',
      detail: 'Every native call is seen before it runs (the hook) and appears in the run log with its result; only Bash and the write tools are decided by the policy engine, reads are allowed by name, unknown tools refused.',
      testedBy: SDK_PLAN_WRITE,
    }),
    row({
      capability: 'sandbox',
      host: 'bubblewrap',
      level: 'enforced',
      detail:
        'The SDK’s engine process is started through `spawnClaudeCodeProcess` inside bubblewrap, with the same mounts as the Claude Code CLI (data root and the server user’s home hidden, private /tmp and HOME, the checkout writable in chat and read-only in read-only modes, loopback-only network to the Control Center: MCP, push proxy, model proxy).',
      testedBy: `${SDK} > Claude Agent SDK transport in bubblewrap (SBX-1) > inside bubblewrap a write outside the worktree fails at the OS level and the data root is hidden`,
    }),
    row({
      capability: 'sandbox',
      host: 'seatbelt',
      level: 'partial',
      detail: 'macOS: the Seatbelt profile generator the Claude Code CLI uses; only its text is tested, and not for this transport: no macOS host runs these tests.',
      testedBy: SEATBELT_TEXT,
    }),
    row({
      capability: 'sandbox',
      host: 'none',
      level: 'none',
      detail: 'No backend: the runner does not start unless the operator started the server with `--allow-unsandboxed-runners`; with it, the SBX-2 fallback (sanitized environment, brokered model endpoint and run token) and nothing bounds a native tool.',
      testedBy: `${SDK_GATE} > without a sandbox and without the operator opt-in the run fails with the reason and never starts the runner`,
    }),
    row({
      capability: 'modes',
      mode: 'chat',
      level: 'enforced',
      detail: 'Agent, Ask and Autopilot run in the SDK’s `default` permission mode, so every gated call reaches the host; Ask and Autopilot add their sentences to the system prompt (RLY-7) and set the autonomy dial the policy engine applies. A mode change applies from the next turn: each turn is a fresh engine process resuming the session (RLY-9, seed 003’s restart on an ask/autopilot switch), with its system prompt rendered fresh (`snapshot: false`: by default the engine would resend the conversation’s first prompt on every resume, so a switch would never reach the model).',
      testedBy: `${SDK_MODE_SWITCH} > Claude Agent SDK: agent → ask → ask → autopilot → plan → agent, one fresh process per turn, each with its own prompt and permission mode`,
    }),
    ...(['plan', 'review', 'orchestrate'] as const).map((mode) =>
      row({
        capability: 'modes',
        mode,
        level: 'partial',
        detail:
          'The SDK’s `plan` permission mode, which is advisory (it runs a write the host allows); the mode holds through the host’s refusal of every write tool, the hook’s mode floor for Bash and the read-only mount. ExitPlanMode shows the Plan ready board and is denied, so the turn does not go on to implement (RLY-5).',
        testedBy: `${SDK_MODES} > plan: ExitPlanMode shows the Plan ready board and is denied, so the turn does not implement`,
      }),
    ),
  ];
}

const DEEPSEEK = 'test/adapters/deepseek-relay.test.ts > DeepSeek relay transport (RLY-7)';
const DEEPSEEK_GATES = 'test/adapters/deepseek-enforcement.test.ts > DeepSeek: the host’s gates on DeepSeek’s own runs (RLY-7, POL-1)';

/**
 * TRUTH-2: the DeepSeek run that shows each ✅ cell (keyed `capability:mode-or-host`), so that no ✅
 * of DeepSeek rests on a Claude Agent SDK test.
 */
const DEEPSEEK_PROOFS: Readonly<Record<string, string>> = {
  'shellCommands:chat': `${DEEPSEEK_GATES} > ask: a command the operator rejects is never executed`,
  'shellCommands:plan': `${DEEPSEEK_GATES} > plan: a mutating command is denied by the mode floor and never runs`,
  'fileWrites:chat': `${DEEPSEEK_GATES} > ask: a native Write waits for approval, and a rejected write leaves no file`,
  'fileWrites:plan': `${DEEPSEEK} > plan: the same host enforcement as Claude — a Write is refused and the file is never created`,
  'fileWrites:review': `${DEEPSEEK_GATES} > review: as a reviewer, a native Write and a Bash redirect are refused by the host and leave no file`,
  'fileWrites:orchestrate': `${DEEPSEEK_GATES} > orchestrate: a native Write and a Bash redirect are refused by the host and leave no file`,
  'productTools:': `${DEEPSEEK_GATES} > plan: submit_plan over the Control Center MCP server stores a plan and meets the completion contract`,
  'completionContract:plan': `${DEEPSEEK_GATES} > plan: a run that ends without submit_plan is reminded, then flagged deliverableFailed`,
  'sandbox:bubblewrap': 'test/adapters/deepseek-enforcement.test.ts > DeepSeek in bubblewrap (SBX-1) > inside bubblewrap a write outside the worktree fails at the OS level and the data root is hidden',
  'modes:chat': `${SDK_MODE_SWITCH} > DeepSeek: the same switches (agent → ask → ask → autopilot → plan → agent) through DeepSeek’s Anthropic-compatible endpoint`,
};

/**
 * DeepSeek (RLY-7) runs on the Claude Agent SDK transport's code unchanged (another broker provider:
 * DeepSeek's Anthropic-compatible endpoint and key), so its cells say what the SDK's say; each ✅ is
 * shown by a DeepSeek run of its own. A ✅ no DeepSeek run shows would be partial, saying so.
 */
function deepseekRows(): HonestyRow[] {
  return [...claudeAgentSdkRows(), skillsRow('claude-agent-sdk')].map((entry) =>
    citedForSibling(
      { ...entry, detail: `Same transport code as the Claude Agent SDK, with DeepSeek’s Anthropic-compatible endpoint and key through the model broker. ${entry.detail}` },
      DEEPSEEK_PROOFS,
      'Shown with the Claude Agent SDK’s own provider only; no DeepSeek run is tested for this cell.',
    ),
  );
}

/**
 * TRUTH-2: a cell one transport shares with another whose code it reuses (DeepSeek on the Agent
 * SDK's, Copilot's extension engine on the SDK engine's), re-cited to the run of this transport that
 * shows it (`proofs`, keyed `capability:mode-or-host`). A ✅ no such run shows becomes partial and
 * says so (`unshown`): the sibling's test is not this transport's proof.
 */
function citedForSibling(entry: HonestyRow, proofs: Readonly<Record<string, string>>, unshown: string): HonestyRow {
  const proof = proofs[`${entry.key}:${entry.mode ?? entry.host ?? ''}`];
  if (proof) return { ...entry, testedBy: proof };
  if (entry.level === 'enforced') return { ...entry, level: 'partial', detail: `${entry.detail} ${unshown}` };
  return entry;
}

const CODEX = 'test/adapters/codex.test.ts';
const CODEX_MODES = `${CODEX} > Codex transport: one turn per relay mode (RLY-7)`;
const CODEX_OWN_SANDBOX = `${CODEX} > Codex transport: Codex’s own read-only sandbox`;
const CODEX_NESTED = `${CODEX_OWN_SANDBOX} > inside bubblewrap Codex’s own sandbox cannot start (no nested user namespace), so only escalated commands run, each through the gate`;
const CODEX_PLAN_BWRAP = `${CODEX} > Codex transport in bubblewrap (SBX-1) > plan: even a command the policy allows cannot write: the worktree is mounted read-only around Codex`;

/** OpenAI Codex (RLY-7): `codex app-server`, its approval requests answered by the policy gate. */
function codexRows(): HonestyRow[] {
  return [
    row({
      capability: 'toolSurface',
      level: 'partial',
      detail:
        'Product tools come only from the Control Center’s MCP server (the mode’s surface). Codex’s own tools (exec_command, write_stdin, apply_patch, request_user_input, web_search, view_image) stay on its surface; apps, plugins, hooks, goals, browser and computer use, image generation, memories and multi-agent are switched off in the server-owned config.toml.',
      testedBy: `${CODEX_MODES} > agent: an escalated command passes the policy gate and runs; the model is reached through the proxy with the broker’s key`,
    }),
    row({
      capability: 'shellCommands',
      mode: 'chat',
      level: 'partial',
      detail:
        'Codex runs commands in its own read-only sandbox without asking anyone; a command that must leave it (any write) is an `item/commandExecution/requestApproval` the policy gate answers (operator approval on Ask, fail closed). Inside bubblewrap Codex’s sandbox cannot start (no nested user namespace, measured on Codex 0.171.0), so there every command that runs has passed the gate; without bubblewrap, reads run ungated.',
      testedBy: `${CODEX_MODES} > ask: the operator rejects the approval, and the command is never executed`,
    }),
    row({
      capability: 'shellCommands',
      mode: 'plan',
      level: 'partial',
      detail: 'Same approval path; the plan mode floor denies every world-changing class, and with bubblewrap the worktree is mounted read-only, so an allowed command still cannot write.',
      testedBy: `${CODEX_MODES} > plan: a mutating command is denied by the mode floor and not executed; the plan becomes a Plan ready board`,
    }),
    row({
      capability: 'fileWrites',
      level: 'partial',
      detail:
        'apply_patch changes arrive as `item/fileChange/requestApproval`: each path goes to the gate in writable modes and every patch is declined in read-only ones. A write by a command inside Codex’s read-only sandbox fails with EROFS; outside bubblewrap that sandbox is Codex’s own, not the host’s.',
      testedBy: `${CODEX_OWN_SANDBOX} > a command that does not ask to escalate runs in Codex’s read-only sandbox: its write fails, its read runs, neither reaches the gate`,
    }),
    row({
      capability: 'reads',
      level: 'none',
      detail: 'Reads inside Codex’s sandbox are not decided by the policy engine; only the OS sandbox bounds them (the data root and the server user’s home are hidden).',
      testedBy: CODEX_NESTED,
    }),
    row({
      capability: 'productTools',
      level: 'enforced',
      detail: 'The Control Center’s MCP server is the only MCP server in the config; Codex sends the run token from an environment variable; each call passes the built-in chokepoint.',
      testedBy: `${CODEX_MODES} > agent: an escalated command passes the policy gate and runs; the model is reached through the proxy with the broker’s key`,
    }),
    row({
      capability: 'pushes',
      level: 'partial',
      detail: 'The runner gets the push-proxy git environment like the Claude runners and a `git push` must escalate through the gate; no push test runs Codex itself.',
      testedBy: `${PUSH} > git push proxy (POL-6) > a push is asked once, at the hook, and forwarded to the bare remote once approved (one approval per push)`,
    }),
    row({
      capability: 'completionContract',
      mode: 'plan',
      level: 'enforced',
      detail: `${HOST_RECORD} Codex’s completed \`mcpToolCall\` item only names the event. A turn ending without submit_plan is followed by a reminder turn on the same thread (twice at most), then the run is flagged deliverableFailed. Codex offers the MCP tools as one Responses \`namespace\` tool; their Codex-side approval is off (\`default_tools_approval_mode = "approve"\`) because the MCP server decides each call.`,
      testedBy: `${CODEX} > Codex transport: the completion contract over MCP (HAR-4) > plan: a run that ends without submit_plan is reminded in new turns, then flagged deliverableFailed`,
    }),
    row({
      capability: 'completionContract',
      mode: 'orchestrate',
      level: 'partial',
      detail: `${HOST_RECORD} The same code with propose_orchestration as the verb; tested end to end in plan mode only.`,
      testedBy: `${CODEX} > Codex transport: the completion contract over MCP (HAR-4) > plan: submit_plan through the Control Center MCP server stores a plan and meets the contract`,
    }),
    row({
      capability: 'nativeTools',
      level: 'partial',
      detail: 'Command, patch and MCP items are shown in the run log as Codex reports them (started/completed); only escalations and patches are decided by the host.',
      testedBy: `${CODEX_MODES} > agent: an escalated command passes the policy gate and runs; the model is reached through the proxy with the broker’s key`,
    }),
    row({
      capability: 'sandbox',
      host: 'bubblewrap',
      level: 'enforced',
      detail: 'The native app-server runs inside bubblewrap with the Claude runners’ mounts (data root and home hidden, private /tmp and HOME, CODEX_HOME the only other writable path, worktree read-only in read-only modes, loopback-only network).',
      testedBy: CODEX_PLAN_BWRAP,
    }),
    row({
      capability: 'sandbox',
      host: 'seatbelt',
      level: 'none',
      detail: 'Not tested: no macOS host runs these tests; the shared Seatbelt profile generator would be used.',
      testedBy: SEATBELT_TEXT,
    }),
    row({
      capability: 'sandbox',
      host: 'none',
      level: 'none',
      detail: 'No backend: the runner does not start unless the operator opted in with `--allow-unsandboxed-runners`; then only Codex’s own read-only sandbox bounds its unescalated commands.',
      testedBy: `${CODEX_OWN_SANDBOX} > a command that does not ask to escalate runs in Codex’s read-only sandbox: its write fails, its read runs, neither reaches the gate`,
    }),
    row({
      capability: 'modes',
      mode: 'chat',
      level: 'enforced',
      detail: 'Agent, Ask and Autopilot run Codex’s `default` collaboration mode with the relay sentences in the developer instructions (Ask, Autopilot) and the autonomy dial on the gate. Each turn is a fresh app-server resuming the thread, so a mode change applies from the next turn (RLY-9).',
      testedBy: `${CODEX_MODES} > autopilot: the Autopilot sentences reach the model and commands run without asking`,
    }),
    ...(['plan', 'review', 'orchestrate'] as const).map((mode) =>
      row({
        capability: 'modes',
        mode,
        level: 'partial',
        detail: 'Codex’s `plan` collaboration mode (request_user_input is offered only there); its `plan` item becomes the Plan ready board. The mode holds through the gate’s mode floor, declined patches and, with bubblewrap, the read-only mount.',
        testedBy: CODEX_PLAN_BWRAP,
      }),
    ),
  ];
}

const ACP = 'test/adapters/acp.test.ts';
const ACP_GATE = `${ACP} > ACP transport: permission requests go to the policy gate (POL-1)`;
const ACP_REQUESTS = `${ACP} > ACP transport: agent requests the host answers`;
const ACP_PLAN = `${ACP_GATE} > plan: set_mode plan; a mutating command the agent would run is denied, and an edit is refused without asking`;

const ACP_REAL_AGENT = 'test/adapters/acp-real-agent.test.ts > ACP transport against claude-agent-acp (RLY-7)';
const ACP_REAL_RUNS = 'test/adapters/acp-real-agent-enforcement.test.ts > ACP transport against claude-agent-acp: orchestrate and the sandbox (RLY-7, HAR-4, SBX-1)';
/** Said by every ACP cell shown only with the scripted ACP agent (test/support/fake-acp-agent.mjs). */
const FAKE_ACP_AGENT = ' Tested against a fake ACP agent (a scripted process speaking the protocol), not a real agent.';

/**
 * TRUTH-2: an ACP cell whose test runs the scripted ACP agent says so, and is at most partial: a real
 * agent's behaviour is not shown by it.
 */
function provenWithFakeAcpAgent(entry: HonestyRow): HonestyRow {
  const fake = entry.testedBy.startsWith(`${ACP} > `) || entry.testedBy.startsWith(`${FORGERY} > `);
  if (!fake) return entry;
  return { ...entry, level: entry.level === 'enforced' ? 'partial' : entry.level, detail: `${entry.detail}${FAKE_ACP_AGENT}` };
}

/** Any ACP agent (RLY-7): its permission requests and `fs/*` requests answered by the host; what it does unasked is unseen. */
function acpRows(): HonestyRow[] {
  return acpCells().map(provenWithFakeAcpAgent);
}

function acpCells(): HonestyRow[] {
  return [
    row({
      capability: 'toolSurface',
      level: 'none',
      detail: 'The agent keeps its own tools; the host only adds the Control Center MCP server (over HTTP, when the agent takes HTTP MCP servers) and offers no terminal.',
      testedBy: `${ACP_GATE} > agent: an allowed command runs; the session gets the worktree as cwd and the Control Center MCP server`,
    }),
    row({
      capability: 'shellCommands',
      level: 'partial',
      detail: 'Every `session/request_permission` of kind execute/fetch/other (or unknown) goes to the policy gate as the command it names (operator approval on Ask, mode floor in read-only modes, fail closed); the answer is a one-time option, never "always". A command the agent runs without asking is not seen: only the OS sandbox bounds it. `terminal/*` is refused.',
      testedBy: `${ACP_GATE} > ask: the operator rejects, the agent is told no and the command is never executed`,
    }),
    row({
      capability: 'fileWrites',
      level: 'partial',
      detail: '`fs/write_text_file` goes through the gate and the worktree’s confined writes (a path outside is refused), and is refused in read-only modes; an edit permission request is refused in read-only modes, else gated per path. An agent that writes with its own tools without asking is bounded only by the OS sandbox (the read-only worktree mount in read-only modes).',
      testedBy: `${ACP_REQUESTS} > fs/write_text_file writes inside the worktree through the gate; a path outside is refused and nothing is written`,
    }),
    row({
      capability: 'reads',
      level: 'none',
      detail: '`fs/read_text_file` is confined to the worktree but not gated; read/search permission requests are allowed; the agent’s own reads are unseen.',
      testedBy: `${ACP_REQUESTS} > fs/write_text_file writes inside the worktree through the gate; a path outside is refused and nothing is written`,
    }),
    row({
      capability: 'productTools',
      level: 'enforced',
      detail: 'Product tools come only from the Control Center MCP server, which authorizes every call with the run token against the mode’s surface. An agent’s permission request for one of them (titled `mcp__control-center__<tool>`, no command) is allowed so that the MCP server, not the command gate, decides; the real claude-agent-acp delivers submit_plan in plan mode that way.',
      testedBy: `${ACP_REAL_AGENT} > plan: submit_plan called by the real agent over MCP is what the host records: delivered, no reminder (HAR-4)`,
    }),
    row({
      capability: 'pushes',
      level: 'partial',
      detail: 'The runner environment points git at the push proxy (as for the other runners); no ACP test pushes.',
      testedBy: `${ACP} > ACP transport in bubblewrap (SBX-1) > the agent runs inside the runner sandbox: an allowed command writes the worktree, the data root stays hidden`,
    }),
    row({
      capability: 'completionContract',
      mode: 'plan',
      level: 'enforced',
      detail: `${HOST_RECORD} The real claude-agent-acp agent’s submit_plan is shown counted from the host’s record, with no reminder. That a line a command forges into the agent’s output pipe is not counted, that an agent which does not report its MCP calls is counted when it delivered, and the reminders (a turn without submit_plan gets one as another prompt in the same session, twice at most, then the run is flagged deliverableFailed) are tested against a fake ACP agent.`,
      testedBy: `${ACP_REAL_AGENT} > plan: submit_plan called by the real agent over MCP is what the host records: delivered, no reminder (HAR-4)`,
    }),
    row({
      capability: 'completionContract',
      mode: 'orchestrate',
      level: 'enforced',
      detail: `${HOST_RECORD} The same reminders as in plan, with propose_orchestration: the real claude-agent-acp agent ending an orchestrate turn without it is reminded twice in the same session, then flagged. That a claimed call is reminded and flagged and an unreported real one counts is tested against a fake ACP agent.`,
      testedBy: `${ACP_REAL_RUNS} > orchestrate: a turn without propose_orchestration is reminded twice in the same session, then flagged deliverableFailed`,
    }),
    row({
      capability: 'nativeTools',
      level: 'partial',
      detail: 'Seen as far as the agent reports them (`tool_call`/`tool_call_update` session updates become tool-call events).',
      testedBy: ACP_PLAN,
    }),
    row({
      capability: 'sandbox',
      level: 'enforced',
      host: 'bubblewrap',
      detail: 'The agent process runs inside bubblewrap with the runners’ mounts (data root and home hidden, private /tmp and HOME, worktree read-only in read-only modes, loopback-only network). Shown with the real claude-agent-acp agent: a command the gate allows still cannot write outside the worktree or read the operator token.',
      testedBy: `${ACP_REAL_RUNS} > inside bubblewrap a command the gate allows still cannot write outside the worktree, and the data root is hidden`,
    }),
    row({
      capability: 'sandbox',
      host: 'seatbelt',
      level: 'none',
      detail: 'Not tested: no macOS host runs these tests; the shared Seatbelt profile generator would be used.',
      testedBy: SEATBELT_TEXT,
    }),
    row({
      capability: 'sandbox',
      host: 'none',
      level: 'none',
      detail: 'No backend: the agent does not start unless the operator opted in with `--allow-unsandboxed-runners`; then nothing bounds what it does unasked.',
      testedBy: `${ACP_GATE} > agent: an allowed command runs; the session gets the worktree as cwd and the Control Center MCP server`,
    }),
    row({
      capability: 'modes',
      mode: 'chat',
      level: 'partial',
      detail: '`session/set_mode` when the agent advertises a fitting mode (agent → default, autopilot → acceptEdits; never bypassPermissions), else the RLY-8 `[Relay mode: …]` line on the message that changes the mode (Ask for Claude’s adapters; every mode for an agent without modes) — words the agent may ignore; the gate still answers its permission requests.',
      testedBy: `${ACP} > ACP transport: modes without set_mode and process death > an agent without modes gets the RLY-8 line once per change, and the revocation when it goes back to agent`,
    }),
    ...(['plan', 'review', 'orchestrate'] as const).map((mode) =>
      row({
        capability: 'modes',
        mode,
        level: 'partial',
        detail: 'The agent’s `plan` mode when it has one (else the RLY-8 line); the host refuses every edit request and `fs/write_text_file`, the gate’s mode floor denies mutating commands, and with bubblewrap the worktree is mounted read-only. A plan update or a `switch_mode` (ExitPlanMode) request becomes the Plan ready board.',
        testedBy: ACP_PLAN,
      }),
    ),
  ];
}

const GROK = 'test/adapters/grok/grok-transport.test.ts';
const GROK_MODES = `${GROK} > Grok transport: one turn per relay mode (RLY-7, RLY-8)`;
const GROK_AGENT = `${GROK_MODES} > agent: the CLI writes a file with its own tool; the model is reached through the proxy with the broker’s key; no mode line`;
const GROK_ASK = `${GROK_MODES} > ask: the Ask line goes with the message; the CLI still runs its tools itself (nothing gates them)`;
const GROK_PLAN = `${GROK_MODES} > plan: in bubblewrap the worktree is read-only, so the CLI’s edit and command fail and the file is unchanged; a plan-like answer shows the board`;
const GROK_PLAN_REFUSED = `${GROK_MODES} > plan: refused with the reason when no OS sandbox would keep the worktree read-only; the CLI never starts`;
const GROK_LINE = `${GROK} > Grok transport: the conversation goes on across messages > the second message sees the first (its question, tool call and answer); the mode line comes only when the mode changes`;
const GROK_CONTRACT = `${GROK} > Grok transport: the Control Center tools over MCP and the completion contract (HAR-4, RLY-7)`;
const GROK_SUBMIT = `${GROK_CONTRACT} > plan: the CLI is offered the MCP tools on its first request; submit_plan through the bridge stores the plan and meets the contract`;
const GROK_REMINDED = `${GROK_CONTRACT} > plan: a turn without submit_plan is reminded twice as further messages to the same CLI process, then flagged deliverableFailed`;
const GROK_LIVE = `${GROK} > Grok transport: events arrive during the turn > text deltas, the tool-using step and the tool call’s start and end are recorded while the model is still working`;
const GROK_STEER = `${GROK} > Grok transport: a message sent into the running turn (HAR-5, RLY-9) > steering reaches the CLI before its next model call; a mode change meanwhile does not change the turn, and applies from the next message`;
const GROK_SKILLS = 'test/adapters/grok/grok-skills.test.ts > Grok sees exactly the scanned skills, through the server only (SKL-5, RLY-7) > the Skills section and the repo-skills index name the scanned set; the body loads through the MCP skill tool; quarantined and never-installed skills never reach the model';
const GROK_PAUSE = `${GROK} > Grok transport: pause holds the next model request at the model proxy (HAR-5) > paused: the tool call in flight finishes, the next model request waits until resume, then the turn completes`;
const GROK_CONFIG = 'test/security/grok-worktree-config.test.ts > Grok CLI: the worktree’s own configuration never reaches the runner (SEC-3, SEC-6) > a worktree .env, .grok/settings.json (MCP server command, model, base URL) and .grok/GROK.md are all ignored';

/**
 * The npm Grok CLI (`@vibe-kit/grok-cli`) headless: it approves and runs every tool call itself, with
 * no hook, permission callback or mode, so nothing but the OS sandbox bounds it.
 */
function grokRows(): HonestyRow[] {
  const unseen = 'The CLI approves every call itself (headless mode auto-approves all operations) and has no hook or permission seam: the host sees the call as it starts (the preload reports it), never before. Only the OS sandbox bounds it.';
  return [
    row({ capability: 'toolSurface', level: 'none', detail: 'The CLI keeps its own tools (view_file, create_file, str_replace_editor, bash, search, todo lists); the worktree’s `.grok/settings.json` MCP servers and the Morph editor are kept off by the preload; the only MCP server is the Control Center’s (through the host’s stdio bridge). Its own tools are not narrowed per mode.', testedBy: GROK_CONFIG }),
    row({ capability: 'shellCommands', level: 'none', detail: `Its \`bash\` tool runs every command unasked. ${unseen}`, testedBy: GROK_ASK }),
    row({ capability: 'fileWrites', level: 'none', detail: `create_file and str_replace_editor write unasked. ${unseen} In read-only modes the worktree is mounted read-only (a plan turn refuses to start without a sandbox).`, testedBy: GROK_PLAN }),
    row({ capability: 'reads', level: 'none', detail: 'Its reads are unseen; the sandbox hides the data root and the server user’s home.', testedBy: GROK_AGENT }),
    row({ capability: 'productTools', level: 'enforced', detail: 'The CLI’s MCP support takes stdio servers from its project `.grok/settings.json` only (its http/sse transports do not speak MCP): the host writes one there, in a folder read-only to the runner, naming a bridge that forwards to the run’s MCP endpoint with the run token. The MCP server authorizes every call against the mode’s surface.', testedBy: GROK_SUBMIT }),
    row({ capability: 'pushes', level: 'partial', detail: 'The runner environment points git at the push proxy (as for the other runners); no Grok test pushes.', testedBy: GROK_AGENT }),
    row({ capability: 'completionContract', mode: 'plan', level: 'enforced', detail: `${HOST_RECORD} The preload’s report of a successful \`mcp__control-center__submit_plan\` (from inside the runner) only names the event. A message without the delivery gets the contract’s reminder as another message to the same CLI process (twice at most), then the run is flagged deliverableFailed. A plan turn whose answer reads like a plan also shows the Plan ready board (RLY-5 fallback).`, testedBy: GROK_REMINDED }),
    row({ capability: 'completionContract', mode: 'orchestrate', level: 'partial', detail: `${HOST_RECORD} The same reminders as in plan, with propose_orchestration; tested through plan mode only.`, testedBy: GROK_SUBMIT }),
    row({ capability: 'nativeTools', level: 'partial', detail: 'Seen live: the preload runs the CLI’s own streaming loop and reports text deltas, each step, and each tool call as it starts and ends (a failed tool is an error result) — after the CLI approved it, never before.', testedBy: GROK_LIVE }),
    row({ capability: 'sandbox', level: 'enforced', host: 'bubblewrap', detail: 'The CLI runs inside bubblewrap with the runners’ mounts (data root and home hidden, private /tmp and HOME, worktree read-only in read-only modes, loopback-only network to the server and its model proxy).', testedBy: GROK_PLAN }),
    row({ capability: 'sandbox', host: 'seatbelt', level: 'none', detail: 'Not tested: no macOS host runs these tests; the shared Seatbelt profile generator would be used.', testedBy: SEATBELT_TEXT }),
    row({ capability: 'sandbox', host: 'none', level: 'none', detail: 'No backend: the CLI does not start unless the operator opted in with `--allow-unsandboxed-runners`, and even then a read-only turn (plan) is refused, since nothing else would stop its edits.', testedBy: GROK_PLAN_REFUSED }),
    row({ capability: 'modes', mode: 'chat', level: 'partial', detail: 'The CLI has no settable mode: Ask and Autopilot go as the RLY-8 `[Relay mode: …]` line on the message that changes the mode (the revocation line on the way back to Agent) — words the model may ignore.', testedBy: GROK_LINE }),
    row({ capability: 'modes', mode: 'chat', level: 'partial', detail: 'RLY-9: a message sent into a running turn (steer) joins the CLI’s conversation before its next model call, without a mode line: the turn keeps its opening mode, and a mode changed meanwhile reaches the CLI as the line on the next message. Nothing the CLI does is gated by the mode either way (see above).', testedBy: GROK_STEER }),
    row({ capability: 'modes', level: 'partial', detail: 'HAR-5 pause: the CLI reaches its model only through the host’s model proxy with the run token, and the proxy holds a paused run’s next model request until resume (cancel still ends it). A tool call already running when the pause comes finishes first; MCP tool calls are not held.', testedBy: GROK_PAUSE }),
    ...(['plan', 'review', 'orchestrate'] as const).map((mode) =>
      row({ capability: 'modes', mode, level: 'partial', detail: 'The RLY-8 Plan line asks the model not to change code; what holds is the read-only worktree mount of the OS sandbox (the turn is refused without one).', testedBy: GROK_PLAN }),
    ),
    hostSkillToolRow(GROK_CAPABILITIES, {
      level: 'enforced',
      own: 'grok-cli 0.0.34 has none — no file of its `dist/` mentions skills, which a test checks so that an upgrade that adds one fails — and its `.grok/GROK.md` instructions are not read',
      bound: 'The checkout’s files (a quarantined skill’s folder included) stay readable to its file tools like any other file; nothing presents them to the model as skills.',
      testedBy: GROK_SKILLS,
    }),
  ];
}

const COPILOT = 'test/adapters/copilot.test.ts';
const COPILOT_MODES = `${COPILOT} > Copilot transport: one turn per relay mode (RLY-7)`;
const COPILOT_ASK = `${COPILOT} > Copilot transport: Ask cards (RLY-7)`;
const COPILOT_CONTRACT = `${COPILOT} > Copilot transport: the completion contract over MCP (HAR-4)`;
const COPILOT_AGENT = `${COPILOT_MODES} > agent: a writing command passes the policy gate and runs; every model call goes through the proxy with the broker’s key; the next message resumes the session`;
const COPILOT_PLAN = `${COPILOT_MODES} > plan: a mutating command is refused as plan mode and never runs; exit_plan_mode becomes a Plan ready board and is not approved`;
const COPILOT_SKILLS = 'test/adapters/copilot-skills.test.ts > Copilot sees exactly the scanned skills (SKL-5) > offers the installed skill and the active repository’s scanned skill; never the checkout’s own, a planted one or the unscanned name';
const COPILOT_BWRAP = `${COPILOT} > Copilot transport in bubblewrap (SBX-1) > plan: the runtime runs sandboxed, the worktree read-only and the data root hidden; a write is refused and not made`;

/** GitHub Copilot through `@github/copilot-sdk` (RLY-7): every permission request answered by the host; what the runtime deems read-only runs unasked. */
function copilotRows(): HonestyRow[] {
  return [
    row({
      capability: 'toolSurface',
      level: 'partial',
      detail:
        'Product tools come only from the Control Center’s MCP server (the mode’s surface). Copilot’s own tools (bash, apply_patch, view, rg, glob, ask_user, task, sql, …; exit_plan_mode and task_complete in its plan mode) stay on its surface (its `skill` tool loads only the scanned skills, see the skills row); any other MCP server and every URL fetch, memory or extension request is refused.',
      testedBy: COPILOT_PLAN,
    }),
    row({
      capability: 'shellCommands',
      mode: 'chat',
      level: 'partial',
      detail:
        'The runtime asks the host (`onPermissionRequest`) before a command it does not parse as read-only: Agent and Autopilot put it to the policy gate (operator approval where a rule asks, fail closed); Ask asks the policy first — a deny is final and no card is shown — then shows the card “Copilot wants to run: … Approve this action?” (Approve / Deny / a typed reason passed to the agent; no answer in time → user-not-available). Commands the runtime parses as read-only run without the gate; only the OS sandbox bounds them.',
      testedBy: `${COPILOT_ASK} > ask: a policy deny wins before any card is shown`,
    }),
    ...(['plan', 'review', 'orchestrate'] as const).map((mode) =>
      row({
        capability: 'shellCommands',
        mode,
        level: 'partial',
        detail: 'Every mutating request is refused by the host with “You are in plan mode”, whatever the policy or Copilot would allow; with bubblewrap the worktree is mounted read-only as well. Read-only commands run unasked.',
        testedBy: COPILOT_PLAN,
      }),
    ),
    row({
      capability: 'fileWrites',
      level: 'partial',
      detail: 'A file edit arrives as a `write` permission request: its path goes to the gate in writable modes (or to the Ask card after the policy) and is refused in read-only modes. A write by a command the runtime wrongly parses as read-only would not be asked about; the OS sandbox bounds it.',
      testedBy: `${COPILOT_ASK} > ask: a typed reason denies the action, the command never runs, the reason reaches the agent, and a plan-like answer gets a board`,
    }),
    row({
      capability: 'reads',
      level: 'none',
      detail: 'Read requests are approved in every mode (RLY-7); only the OS sandbox bounds them (the data root and the server user’s home hidden).',
      testedBy: COPILOT_BWRAP,
    }),
    row({
      capability: 'productTools',
      level: 'enforced',
      detail: 'The Control Center’s MCP server is the only one given to the session, with the run token; its permission requests are approved by the host because the MCP server decides each call at the built-in chokepoint. Any other MCP server’s request is refused.',
      testedBy: `${COPILOT_CONTRACT} > plan: submit_plan through the Control Center MCP server stores a plan and meets the contract`,
    }),
    row({
      capability: 'pushes',
      level: 'partial',
      detail: 'The runtime gets the push-proxy git environment like the other runners, and a `git push` command is a mutating shell request that must pass the gate; no push test runs Copilot itself.',
      testedBy: `${PUSH} > git push proxy (POL-6) > a push is asked once, at the hook, and forwarded to the bare remote once approved (one approval per push)`,
    }),
    row({
      capability: 'completionContract',
      mode: 'plan',
      level: 'enforced',
      detail: `${HOST_RECORD} Copilot’s \`tool.execution_complete\` of the call only names the event. A turn ending without submit_plan is followed by a reminder message in the same session (twice at most), then the run is flagged deliverableFailed.`,
      testedBy: `${COPILOT_CONTRACT} > plan: a run that ends without submit_plan is reminded in new messages, then flagged deliverableFailed`,
    }),
    row({
      capability: 'completionContract',
      mode: 'orchestrate',
      level: 'partial',
      detail: `${HOST_RECORD} The same code with propose_orchestration as the verb; tested end to end in plan mode only.`,
      testedBy: `${COPILOT_CONTRACT} > plan: submit_plan through the Control Center MCP server stores a plan and meets the contract`,
    }),
    row({
      capability: 'nativeTools',
      level: 'partial',
      detail: 'Tool starts and completions are shown in the run log as the runtime reports them (a refused request shows as not executed); only mutating permission requests are decided by the host.',
      testedBy: COPILOT_AGENT,
    }),
    row({
      capability: 'sandbox',
      host: 'bubblewrap',
      level: 'enforced',
      detail: 'The native runtime runs inside bubblewrap with the other runners’ mounts (data root and home hidden, private /tmp and HOME, its session directory and the shared unpacked-runtime cache the only other writable paths, worktree read-only in read-only modes, loopback-only network). It runs offline (`COPILOT_OFFLINE`) with the model proxy as its only provider, holding the run token only.',
      testedBy: COPILOT_BWRAP,
    }),
    row({
      capability: 'sandbox',
      host: 'seatbelt',
      level: 'none',
      detail: 'Not tested: no macOS host runs these tests; the shared Seatbelt profile generator would be used.',
      testedBy: SEATBELT_TEXT,
    }),
    row({
      capability: 'sandbox',
      host: 'none',
      level: 'none',
      detail: 'No backend: the runner does not start unless the operator opted in with `--allow-unsandboxed-runners`; then nothing bounds what an approved or read-only command does.',
      testedBy: COPILOT_AGENT,
    }),
    row({
      capability: 'modes',
      mode: 'chat',
      level: 'enforced',
      detail: 'Each message carries Copilot’s `agentMode`: Agent and Ask → interactive, Autopilot → autopilot; Ask differs at the host, where every mutating request becomes a card after the policy. Each turn is a fresh runtime resuming the conversation’s session, so a mode change applies from the next message (RLY-9).',
      testedBy: `${COPILOT_MODES} > autopilot: commands run without approvals or cards`,
    }),
    ...(['plan', 'review', 'orchestrate'] as const).map((mode) =>
      row({
        capability: 'modes',
        mode,
        level: 'partial',
        detail: 'Copilot’s `plan` agentMode (exit_plan_mode offered only there); exit_plan_mode becomes the Plan ready board and is answered not approved, so the turn never implements; a plan-like answer gets the board otherwise. The mode holds through the host’s refusal of every mutating request and, with bubblewrap, the read-only mount.',
        testedBy: COPILOT_PLAN,
      }),
    ),
    row({
      capability: 'skills',
      level: 'partial',
      detail:
        'The prepare stage writes the scanned set (installed skills matching the lock, and the active repository’s scanned repo skills) into a server-owned run folder, mounted read-only and given to the session as its only `skillDirectories`; config discovery stays off (the checkout’s `.agents/skills/`, `.github/skills/` and `COPILOT_HOME`’s skills are not loaded), and before every message each other skill the session lists (the runtime’s built-ins) is disabled, the listing read again and the run failed if anything unscanned is still enabled. The real runtime is shown listing exactly the installed and the scanned repo skill and loading a body with its own `skill` tool, while the checkout’s quarantined and unscanned skills and a planted `COPILOT_HOME` skill reach nothing. Partial: the runtime disables by name, so a built-in sharing a scanned skill’s name hides both; custom-instruction files in the worktree are outside this row.',
      testedBy: COPILOT_SKILLS,
    }),
  ];
}

const COPILOT_EXTENSION = 'test/adapters/copilot-extension.test.ts > Copilot extension engine: the mode as a line, no permission checks (RLY-7, RLY-8)';
const COPILOT_EXTENSION_ASK = `${COPILOT_EXTENSION} > ask: the Ask line starts the first message only; a writing command runs with no card and no gate; switching to Agent revokes the line`;
const COPILOT_EXTENSION_PLAN = `${COPILOT_EXTENSION} > plan: the Plan line, no exit_plan_mode tool (no Copilot plan mode), and a plan-like answer gets the board`;
const COPILOT_EXTENSION_RUNS = 'test/adapters/copilot-extension-enforcement.test.ts';
const COPILOT_EXTENSION_CONTRACT = `${COPILOT_EXTENSION_RUNS} > Copilot extension engine: the Control Center MCP tools and the completion contract (HAR-4)`;
/** The extension engine's own runs behind the ✅ cells it shares with the SDK engine (TRUTH-2). */
const COPILOT_EXTENSION_PROOFS: Readonly<Record<string, string>> = {
  'productTools:': `${COPILOT_EXTENSION_CONTRACT} > plan: submit_plan over the Control Center MCP server stores a plan and meets the contract`,
  'completionContract:plan': `${COPILOT_EXTENSION_CONTRACT} > plan: a turn without submit_plan is reminded twice in new messages, then flagged deliverableFailed`,
  'sandbox:bubblewrap': `${COPILOT_EXTENSION_RUNS} > Copilot extension engine in bubblewrap (SBX-1) > plan: although every request is approved, the worktree is read-only and the data root hidden: the write is not made`,
};

/**
 * Copilot's extension engine: the SDK engine's runtime, sandbox and MCP set-up, but every permission
 * request approved and the relay mode only as the RLY-8 line — the rows say what that leaves.
 */
function copilotExtensionRows(): HonestyRow[] {
  const noCheck = 'The extension engine makes no permission checks: every request Copilot sends is approved without the policy gate, in every relay mode.';
  const shared = copilotRows()
    .filter((entry) => entry.key === 'productTools' || entry.key === 'completionContract' || entry.key === 'sandbox' || entry.key === 'skills')
    .map((entry) => citedForSibling(entry, COPILOT_EXTENSION_PROOFS, 'Shown with the SDK engine (the same runtime, MCP and sandbox set-up); no test runs the extension engine for this cell.'));
  return [
    row({ capability: 'toolSurface', level: 'partial', detail: 'As the SDK engine, without exit_plan_mode (no Copilot plan mode): Copilot’s own tools stay on its surface and product tools come only from the Control Center’s MCP server.', testedBy: COPILOT_EXTENSION_PLAN }),
    row({ capability: 'shellCommands', level: 'none', detail: `${noCheck} Only the OS sandbox bounds commands (the worktree read-only in read-only modes with bubblewrap).`, testedBy: COPILOT_EXTENSION_ASK }),
    row({ capability: 'fileWrites', level: 'none', detail: `${noCheck} Plan mode is only the line’s request; with bubblewrap the read-only mount still stops writes.`, testedBy: COPILOT_EXTENSION_ASK }),
    row({ capability: 'reads', level: 'none', detail: 'Reads are never checked; only the OS sandbox bounds them.', testedBy: COPILOT_EXTENSION_ASK }),
    row({ capability: 'pushes', level: 'partial', detail: 'The push-proxy git environment as for the SDK engine; a push made by a command is not gated by a permission check, only by the push proxy.', testedBy: `${PUSH} > git push proxy (POL-6) > a push is asked once, at the hook, and forwarded to the bare remote once approved (one approval per push)` }),
    row({ capability: 'nativeTools', level: 'partial', detail: 'Tool starts and completions are shown in the run log as the runtime reports them; nothing is decided by the host.', testedBy: COPILOT_EXTENSION_ASK }),
    row({ capability: 'modes', mode: 'chat', level: 'partial', detail: 'No agentMode is sent (always interactive): Ask and Autopilot are the `[Relay mode: …]` line at the start of a message, only when the mode changes; leaving them for Agent sends a line saying the earlier instructions no longer apply. A request to the model, nothing more.', testedBy: COPILOT_EXTENSION_ASK }),
    ...(['plan', 'review', 'orchestrate'] as const).map((mode) =>
      row({ capability: 'modes', mode, level: 'partial', detail: 'The Plan line only (no Copilot plan mode, no exit_plan_mode); a plan-like answer gets the Plan ready board. Nothing refuses a write but the read-only mount under bubblewrap.', testedBy: COPILOT_EXTENSION_PLAN }),
    ),
    ...shared,
  ];
}

const CURSOR_MODES = 'test/adapters/cursor/cursor-relay-modes.test.ts > Cursor transport: one turn per relay mode (RLY-7, RLY-8)';
const CURSOR_HOST = 'test/adapters/cursor/cursor-relay-modes.test.ts > Cursor transport: host enforcement (RLY-7, POL-1)';
const CURSOR_PLAN = 'test/adapters/cursor/cursor-plan-and-failures.test.ts > Cursor transport: plan ready board and completion contract (RLY-5, HAR-4)';
const CURSOR_FAILURES = 'test/adapters/cursor/cursor-plan-and-failures.test.ts > Cursor transport: failures are reported, never left running';
const CURSOR_SKILLS = 'test/adapters/cursor/cursor-skills.test.ts > Cursor sees exactly the scanned skills, through the server only (SKL-5, RLY-7) > the first message names the scanned set; the body loads through the MCP skill tool; quarantined and never-installed skills are refused; no settings layer or extra folder is given to the SDK';
const CURSOR_SETTINGS = 'test/security/cursor-worktree-settings.test.ts > Cursor: worktree files cannot change what the host enforces (RLY-7, SEC-3)';
const CURSOR_AGENT = `${CURSOR_MODES} > agent: no mode line; a gated run_command runs in the worktree; the next message resumes the same Cursor agent; nothing reaches another provider`;
const CURSOR_PLAN_WRITE = `${CURSOR_HOST} > plan cannot write: a Cursor edit call in plan cancels the turn before its effect, the run fails saying so`;
const CURSOR_CONTRACT = `${CURSOR_PLAN} > plan: Cursor’s createPlan becomes a native Plan ready board; submit_plan over the real MCP endpoint meets the contract`;
/** Every Cursor cell is shown against a stand-in: the SDK needs Cursor's backend, unreachable here. */
const FAKE_ONLY = ' Tested against a fake SDK at the transport’s seam only.';

/**
 * Cursor through `@cursor/sdk`: the SDK runs in the server's process and has no permission callback,
 * so the host shapes the surface (reads + MCP + gated host tools) and cancels a turn on any other
 * call — after the fact.
 */
function cursorRows(): HonestyRow[] {
  // TRUTH-2: a cell proven against a fake is at most partial, whatever the host does for it.
  const cell = (input: RowInput): HonestyRow => row({ ...input, level: input.level === 'enforced' ? 'partial' : input.level, detail: `${input.detail}${FAKE_ONLY}` });
  const withFakeOnly = (derived: HonestyRow): HonestyRow => ({ ...derived, detail: `${derived.detail}${FAKE_ONLY}` });
  return [
    cell({
      capability: 'toolSurface',
      level: 'partial',
      detail: 'The SDK is given a `tools` allowlist: Cursor’s reads (read, grep, glob, ls, semSearch, readLints, todos) and the MCP family — the Control Center’s server and the host tools (`run_command`, `write_file` in writable modes, `ask_user` always). Cursor’s shell, edit, write, delete and subagents are not offered; a call of anything else that the SDK still reports cancels the turn, after the call started.',
      testedBy: CURSOR_AGENT,
    }),
    cell({
      capability: 'shellCommands',
      mode: 'chat',
      level: 'partial',
      detail: 'Commands run only through the host tool `run_command`, which asks the policy gate before anything runs (operator approval where a rule or Ask asks, fail closed) and runs the command in the built-in bash’s command sandbox. Cursor’s own shell is not offered; if the SDK reports one anyway the host cancels the turn, but that call may already have run.',
      testedBy: `${CURSOR_HOST} > a command the policy denies is never run, and the agent is told why`,
    }),
    ...(['plan', 'review', 'orchestrate'] as const).map((mode) =>
      cell({
        capability: 'shellCommands',
        mode,
        level: 'partial',
        detail: 'No command tool exists in a read-only mode (no `run_command`, Cursor’s shell not offered, Cursor’s own plan mode). A non-read call the SDK reports cancels the turn and fails the run saying so — after the fact.',
        testedBy: CURSOR_PLAN_WRITE,
      }),
    ),
    cell({
      capability: 'fileWrites',
      level: 'partial',
      detail: 'Writes go through the host tool `write_file`: the path is confined to the worktree (`..`, absolute paths and symlinks out are refused) and then put to the policy gate; it does not exist in read-only modes. Cursor’s edit/write/delete are not offered; one reported anyway cancels the turn after it started.',
      testedBy: `${CURSOR_SETTINGS} > write_file cannot leave the worktree: a climbing path, an absolute path and a symlink out are refused`,
    }),
    cell({
      capability: 'reads',
      level: 'none',
      detail: 'Cursor’s read tools run inside the server process with the server user’s rights; nothing gates or bounds them (no OS sandbox can wrap an in-process SDK).',
      testedBy: CURSOR_AGENT,
    }),
    cell({
      capability: 'productTools',
      level: 'enforced',
      detail: 'The Control Center’s MCP server is the only one configured (with the run token; the worktree’s MCP lists are never loaded, `settingSources: []`), and it decides every call at the built-in chokepoint. An MCP call to any other server cancels the turn.',
      testedBy: `${CURSOR_SETTINGS} > an MCP call to a server named only in the worktree cancels the turn`,
    }),
    cell({
      capability: 'pushes',
      level: 'partial',
      detail: '`run_command` gets the push-proxy git environment like the built-in bash, and a `git push` is a command the gate decides; no push test runs through Cursor.',
      testedBy: `${PUSH} > git push proxy (POL-6) > a push is asked once, at the hook, and forwarded to the bare remote once approved (one approval per push)`,
    }),
    cell({
      capability: 'completionContract',
      mode: 'plan',
      level: 'enforced',
      detail: `${HOST_RECORD} Cursor’s completed \`mcp\` call only names the event (a stream claiming one it never made is reminded and flagged). A turn ending without submit_plan is followed by a reminder message to the same Cursor agent (twice at most), then the run is flagged deliverableFailed.`,
      testedBy: `${CURSOR_PLAN} > plan: without createPlan, an answer that reads like a plan gets the board; a turn without submit_plan is reminded twice, then flagged`,
    }),
    cell({
      capability: 'completionContract',
      mode: 'orchestrate',
      level: 'partial',
      detail: `${HOST_RECORD} The same code with propose_orchestration as the verb; tested in plan mode only.`,
      testedBy: CURSOR_CONTRACT,
    }),
    cell({
      capability: 'nativeTools',
      level: 'partial',
      detail: 'Tool calls are shown in the run log as the SDK reports them (start and end); the host decides only its own tools before they run.',
      testedBy: CURSOR_AGENT,
    }),
    cell({
      capability: 'sandbox',
      level: 'none',
      detail: 'The SDK runs inside the server process, which no OS sandbox wraps: every Cursor run is refused unless the operator started the server with `--allow-unsandboxed-runners` (SEC-6). Only `run_command`’s commands go through the built-in bash’s command sandbox (bubblewrap where the host has it).',
      testedBy: `${CURSOR_FAILURES} > SEC-6: without --allow-unsandboxed-runners every Cursor run is refused before the SDK is called`,
    }),
    cell({
      capability: 'modes',
      mode: 'chat',
      level: 'partial',
      detail: 'Cursor has no ask or autopilot mode: they reach it as the `[Relay mode: …]` line (RLY-8), sent only when the mode changes; leaving them for Agent sends a line saying the earlier instructions no longer apply; Agent sends nothing. The line is a request; Ask’s approvals are the host’s (the gate asks the operator for `run_command` and `write_file`).',
      testedBy: `${CURSOR_MODES} > ask: the line goes with the first Ask message only, and switching to Agent says the Ask instructions no longer apply`,
    }),
    ...(['plan', 'review', 'orchestrate'] as const).map((mode) =>
      cell({
        capability: 'modes',
        mode,
        level: 'partial',
        detail: 'Cursor’s own `plan` mode on the agent and on each message, reads-only tools and no mutating host tool; Cursor’s createPlan becomes the Plan ready board (a plan-like answer otherwise). A non-read call the SDK reports cancels the turn after it started.',
        testedBy: `${CURSOR_MODES} > plan: Cursor’s plan mode with reads only and no mutating host tool; no line (plan is native), and leaving plan for Agent sends none either`,
      }),
    ),
    withFakeOnly(
      hostSkillToolRow(CURSOR_CAPABILITIES, {
        level: 'partial',
        own: '`@cursor/sdk` 1.0.31 takes MCP servers but no skills folder of the host’s choosing: its skills come from its settings layers and the workspace folders (`cwd`, `dirs`), that is the agent’s checkout, so its settings sources are switched off (`settingSources: []`) and no extra folder is given',
        bound: 'Partial: that Cursor then loads no skill of the checkout rests on the SDK’s documentation of `settingSources`; the first message (which carries the system prompt) opens a new Cursor agent only, so a resumed agent keeps the Skills section it was first told.',
        testedBy: CURSOR_SKILLS,
      }),
    ),
  ];
}

/** The honesty matrix (ADP-1) as data: served by `GET /api/honesty-matrix`, shown in docs/honesty-matrix.md. */
const IMAGE = 'test/adapters/openai-image.test.ts > OpenAI Image transport (RLY-7)';
const IMAGE_RUN = `${IMAGE} > generates an image: the prompt reaches the images API, the image is stored by content hash and served to the operator`;
const IMAGE_MODES = `${IMAGE} > modes have no effect: the plan mode sends the same request (no mode words), and the capabilities tell the web to mark every mode as having no effect (RLY-3)`;
const IMAGE_HOSTILE = 'test/security/image-provider-response.test.ts > hostile images-API answers (RLY-7) > an answer that names a URL fails the run and the URL is never fetched';

/** OpenAI Image: one images-API request per turn from the server; nothing runs, so most cells do not apply (n/a, TRUTH-2). */
function openAIImageRows(): HonestyRow[] {
  const notApplicable = (capability: HonestyCapability, detail: string, testedBy = IMAGE_RUN): HonestyRow => row({ capability, level: 'notApplicable', detail: `Not applicable: ${detail}`, testedBy });
  return [
    notApplicable('toolSurface', 'there is no tool surface to filter — the images API is offered no tool at all (the request carries only the prompt, the model and `n: 1`).'),
    notApplicable('shellCommands', 'the image model runs no commands (there is no process and no tool).'),
    notApplicable('fileWrites', 'the model writes nothing; the server stores the returned image itself, only after checking its magic bytes and size.'),
    notApplicable('reads', 'the model reads nothing of the worktree; it sees the prompt only.'),
    notApplicable('productTools', 'no product tool is offered to the image model.'),
    notApplicable('pushes', 'nothing can push.'),
    notApplicable('completionContract', 'no mode has an output verb here: a turn completes when one image was stored.'),
    notApplicable('nativeTools', 'the images API has no tools of its own that act on anything.'),
    notApplicable('sandbox', 'no process runs, so there is nothing to sandbox; the answer is treated as hostile instead: a URL is never fetched (only inline base64), bytes must be PNG/JPEG/WebP by magic bytes and under the size cap, else the run fails and nothing is stored.', IMAGE_HOSTILE),
    notApplicable('modes', 'the relay mode has no effect and is never sent (the transport declares `relayModes: none`, RLY-3).', IMAGE_MODES),
    notApplicable('skills', 'skills do not reach the image model (the prompt is the operator’s message only).', IMAGE_MODES),
  ];
}

export function honestyMatrix(): HonestyMatrix {
  const adapters: AdapterHonesty[] = [
    { id: 'builtin', label: 'Built-in harness', rows: [...builtinRows(), skillsRow('builtin')] },
    { id: 'claude-code', label: 'Claude Code CLI', rows: [...claudeCodeRows(), skillsRow('claude-code')] },
    { id: 'claude-agent-sdk', label: 'Claude Agent SDK', rows: [...claudeAgentSdkRows(), skillsRow('claude-agent-sdk')] },
    { id: 'deepseek', label: 'DeepSeek (Claude Agent SDK)', rows: deepseekRows() },
    { id: 'codex', label: 'OpenAI Codex', rows: [...codexRows(), skillsRow('codex')] },
    { id: 'acp', label: 'Any ACP agent', rows: [...acpRows(), skillsRow('acp')] },
    { id: 'copilot', label: 'GitHub Copilot (SDK)', rows: copilotRows() },
    { id: 'copilot-extension', label: 'GitHub Copilot (extension engine)', rows: copilotExtensionRows() },
    { id: 'grok', label: 'Grok CLI', rows: grokRows() },
    { id: 'cursor', label: 'Cursor (SDK, tested against a fake only)', rows: cursorRows() },
    { id: 'openai-image', label: 'OpenAI Image', rows: openAIImageRows() },
  ];
  return { adapters: adapters.map((adapter) => ({ ...adapter, rows: [...adapter.rows, webEgressRow(adapter), attachmentsRow(adapter.id), operatorMcpServersRow(adapter)] })) };
}

/** TOOL-2: the runs that show an operator's MCP tool called through the gate, per transport. */
const OPERATOR_MCP_SHOWN: Readonly<Record<string, string>> = {
  builtin:
    'test/services/mcp-server-everything.test.ts > operators\' MCP servers: server-everything over stdio (TOOL-2) > a tool with the classes the operator gave runs through the gate, inside the sandbox, and is in the run log',
  'claude-code': 'test/adapters/claude-code-mcp-servers.test.ts > Claude Code with operators\' MCP servers (TOOL-2) > an operator MCP tool reaches Claude Code only over the Control Center MCP endpoint, each call gated',
  'claude-agent-sdk':
    'test/adapters/claude-agent-sdk-mcp-servers.test.ts > Claude Agent SDK with operators\' MCP servers (TOOL-2) > agent: an operator MCP tool reaches the Claude Agent SDK only over the Control Center MCP endpoint, each call gated',
  codex: 'test/adapters/codex-mcp-servers.test.ts > Codex with operators\' MCP servers (TOOL-2) > agent: an operator MCP tool reaches Codex only over the Control Center MCP endpoint, each call gated',
  copilot: 'test/adapters/copilot-mcp-servers.test.ts > Copilot with operators\' MCP servers (TOOL-2) > agent: an operator MCP tool reaches Copilot only over the Control Center MCP endpoint, each call gated',
  acp: 'test/adapters/acp-mcp-servers.test.ts > ACP with operators\' MCP servers (TOOL-2) > agent: an operator MCP tool reaches an ACP agent (claude-agent-acp) only over the Control Center MCP endpoint, each call gated',
  deepseek: 'test/adapters/deepseek-mcp-servers.test.ts > DeepSeek with operators\' MCP servers (TOOL-2) > agent: an operator MCP tool reaches DeepSeek only over the Control Center MCP endpoint, each call gated',
  'copilot-extension':
    'test/adapters/copilot-extension-mcp-servers.test.ts > Copilot extension engine with operators\' MCP servers (TOOL-2) > agent: an operator MCP tool reaches the Copilot extension engine only over the Control Center MCP endpoint, each call gated',
  grok: 'test/adapters/grok/grok-mcp-servers.test.ts > Grok with operators\' MCP servers (TOOL-2) > agent: an operator MCP tool reaches the Grok CLI only over the Control Center MCP endpoint, each call gated',
};

/** How each runner shown with an operator's tool is given the Control Center's endpoint, and what else its configuration may add. */
const OPERATOR_MCP_HOW: Readonly<Record<string, string>> = {
  'claude-code': 'its own configuration takes no other MCP server (`--strict-mcp-config`).',
  'claude-agent-sdk': 'its own configuration takes no other MCP server.',
  deepseek: 'as on the Claude Agent SDK, whose code it runs, its own configuration takes no other MCP server.',
  'copilot-extension': 'as with the SDK engine, it is the only MCP server given to the session (tools named `control-center-<tool>`).',
  grok: 'it is the one stdio server of the host-written `.grok/settings.json` (read-only to the runner), a bridge to the endpoint; the worktree’s own Grok settings are not read.',
  codex: 'it is the only MCP server of the server-owned config.toml, and Codex offers its tools in the `mcp__control_center` namespace (names with `-` as `_`); Codex’s own approval of MCP calls is off because the endpoint decides.',
  copilot: 'it is the only MCP server given to the session (tools named `control-center-<tool>`), and any other MCP server’s permission request is refused.',
  acp: 'it is the one MCP server the host names in `session/new` (shown with claude-agent-acp). An agent keeps its own tools: MCP servers it loads from its own configuration are not the operator’s and are not gated.',
};

/**
 * TOOL-2: whether an operator's MCP tools reach a runner only through the gate. The Control Center is
 * the only client of an operator's server; a runner gets its tools on the Control Center's MCP
 * endpoint, beside the product tools, and the endpoint decides every call. ✅ where a test of that
 * runner shows an operator tool called there; elsewhere the row says what holds by construction and
 * that no test of the runner shows it yet.
 */
function operatorMcpServersRow(adapter: AdapterHonesty): HonestyRow {
  const shown = OPERATOR_MCP_SHOWN[adapter.id];
  if (adapter.id === 'builtin' && shown) {
    return row({
      capability: 'operatorMcpServers',
      level: 'enforced',
      detail:
        'The Control Center connects to the server (a stdio server runs in the runner sandbox with the SEC-11 limits); each tool is on the surface in the modes its operator-assigned classes allow (every class until assigned, so every call asks), and every call passes the gate and the run log, with a time limit and an output cap.',
      testedBy: shown,
    });
  }
  if (shown) {
    return row({
      capability: 'operatorMcpServers',
      level: 'enforced',
      detail: `${adapter.label} gets an operator’s MCP tools only on the Control Center’s MCP endpoint (with the run token), where each call passes the same gate as the built-in harness’s; ${OPERATOR_MCP_HOW[adapter.id] ?? 'its own configuration takes no other MCP server.'}`,
      testedBy: shown,
    });
  }
  const product = adapter.rows.find((candidate) => candidate.key === 'productTools');
  if (!product || product.level === 'notApplicable') {
    return row({
      capability: 'operatorMcpServers',
      level: 'notApplicable',
      detail: `Not applicable: ${adapter.label} calls no tools, so an operator’s MCP tools are never offered to it.`,
      testedBy: product?.testedBy ?? OPERATOR_MCP_SHOWN.builtin!,
    });
  }
  const fake = /tested against a fake/i.test(product.detail) ? ' (Tested against a fake.)' : '';
  return row({
    capability: 'operatorMcpServers',
    level: 'partial',
    detail: `${adapter.label} would get an operator’s MCP tools only on the Control Center’s MCP endpoint, beside the product tools, where the gate decides every call (the cited test shows that endpoint with a product tool); no test of this runner shows an operator server’s tool yet.${fake}`,
    testedBy: product.testedBy,
  });
}

const ATTACHMENTS = 'test/services/attachments/message-attachments.test.ts > message attachments on the built-in harness (TOOL-3)';
const ATTACHMENTS_REFUSED = `${ATTACHMENTS} > refuses an image for an agent whose transport cannot carry it: %s`;
/** TOOL-3: the runners that take Anthropic messages as input, how the operator's message is written there, and the test with the real runtime. */
const RUNNER_IMAGE_INPUT: Readonly<Record<string, { input: string; testedBy: string }>> = {
  'claude-code': {
    input: 'The transport writes the operator’s message to Claude Code’s stream-json input as content blocks',
    testedBy: 'test/adapters/claude-code-image-attachments.test.ts > Claude Code carries image attachments (TOOL-3) > chat: the attached images reach the model as image blocks with their bytes and media types, before the text',
  },
  'claude-agent-sdk': {
    input: 'The transport puts the operator’s message into the SDK’s streaming input as content blocks',
    testedBy: 'test/adapters/claude-agent-sdk-image-attachments.test.ts > Claude Agent SDK carries image attachments (TOOL-3) > agent: the attached images reach the model as image blocks with their bytes and media types, before the text',
  },
};

/**
 * TOOL-3: whether a message's images reach the model. Text files reach every transport (inlined into
 * the prompt); an image sent to an agent whose transport does not carry images is refused, never dropped.
 */
function attachmentsRow(adapterId: string): HonestyRow {
  if (adapterId === 'builtin') {
    return row({
      capability: 'attachments',
      level: 'enforced',
      detail:
        'The harness builds the request itself: each attached image (PNG, JPEG, WebP or GIF by its magic bytes, at most 3 MiB) goes with the prompt as an Anthropic `image` block or an OpenAI `image_url` data-URL part, before the text; text files are inlined as fenced sections named after the file. An image for a model the catalogue says takes none (DeepSeek, Grok Build) is refused with 400 before anything is recorded. Earlier turns’ images stay in the history as image blocks of their message, counted by their pixels, and are elided to a one-line placeholder naming the file when the window is tight.',
      testedBy: `${ATTACHMENTS} > built-in harness in chat: an image reaches the model as an Anthropic image block and a text file as a fenced section with its name`,
    });
  }
  const carried = RUNNER_IMAGE_INPUT[adapterId];
  if (carried) {
    return row({
      capability: 'attachments',
      level: 'enforced',
      detail: `${carried.input}: each attached image (PNG, JPEG, WebP or GIF by its magic bytes, at most 3 MiB) as an Anthropic \`image\` block with its base64 bytes, before the text; the runner sends them to the model as they are. Text files are inlined into the prompt as fenced sections. A later turn resumes the runner’s session, whose history still holds the images.`,
      testedBy: carried.testedBy,
    });
  }
  if (adapterId === 'openai-image') {
    return row({
      capability: 'attachments',
      level: 'notApplicable',
      detail: 'Not applicable: the images API is sent a prompt to draw, not a conversation to read (no edit of an input image is offered), so the transport does not declare `imageAttachments`; a message with an image for its agents is refused with 400 naming the transport, and a text file is inlined into the prompt.',
      testedBy: ATTACHMENTS_REFUSED,
    });
  }
  return row({
    capability: 'attachments',
    level: 'none',
    detail:
      'The transport hands the runner the prompt as text and does not declare `imageAttachments`: a message with an image for one of its agents is refused with 400 naming the transport, before anything is recorded; text files are inlined into the prompt and reach it.',
    testedBy: ATTACHMENTS_REFUSED,
  });
}

const WEB_TOOLS_TEST = 'test/tools/web-tools-harness.test.ts > built-in harness web tools (TOOL-1)';

/** Each runner's own web access, in the words of its row. */
const RUNNER_WEB_TOOLS: Readonly<Record<string, string>> = {
  'claude-code': 'WebFetch and WebSearch',
  'claude-agent-sdk': 'WebFetch and WebSearch',
  deepseek: 'WebFetch and WebSearch (the Claude Agent SDK’s)',
  codex: 'web_search',
  acp: 'whatever web tools the agent has',
  copilot: 'its web fetch and search tools',
  'copilot-extension': 'its web fetch and search tools',
  grok: 'its web search',
  cursor: 'its web tools',
};

/**
 * TOOL-1: whether domain rules reach a runner's web access. They decide `web_fetch`, the built-in
 * harness's own tool; runners keep their own web tools (web_fetch and web_search are not served to
 * them over MCP), which no domain rule reaches. A ❌ row cites the runner's reads row test, which shows
 * its native reading tools run without asking the policy engine.
 */
function webEgressRow(adapter: AdapterHonesty): HonestyRow {
  if (adapter.id === 'builtin') {
    return row({
      capability: 'webEgress',
      level: 'enforced',
      detail:
        'web_fetch and web_search are the harness’s own tools, gated like every call. web_fetch is decided by its URL’s host against domain rules (exact host, `*.suffix`, `*`; most specific first, before class rules), then the mode and the dial; every redirect hop is decided again; the host is resolved once and every address checked, and loopback (the Control Center’s own port included), private, CGNAT, link-local (metadata) and multicast addresses are refused unless a rule names that exact host. web_search is decided by the networkEgress class (its host is the configured provider’s). A `curl` in bash is decided by its shell classification and command rules, not by domain rules.',
      testedBy: `${WEB_TOOLS_TEST} > built-in web_fetch refuses loopback — the Control Center’s own port included — when no rule names the host; a wildcard allow names none; a deny rule refuses before any connection`,
    });
  }
  const reads = adapter.rows.find((candidate) => candidate.key === 'reads');
  if (adapter.id === 'openai-image' || !reads) {
    return row({
      capability: 'webEgress',
      level: 'notApplicable',
      detail: 'Not applicable: the image model has no tools and fetches no web page; web_fetch and web_search are built-in harness tools only.',
      testedBy: reads?.testedBy ?? `${WEB_TOOLS_TEST} > built-in plan mode has web_fetch (research is its point, CAP-4), decided by the same domain rules`,
    });
  }
  if (adapter.id === 'claude-code') {
    // SEC-8: its WebSearch is Anthropic's server-side web_search tool, named in a model request that
    // passes the model proxy, which decides it by the run's policy; its WebFetch fetches from the CLI itself.
    return row({
      capability: 'webEgress',
      level: 'partial',
      detail:
        'WebSearch is Anthropic’s server-side web_search tool, named in the model request: the model proxy decides it by the run’s policy as networkEgress (its rules, inherited ceilings, mode and dial; a search names no host, so domain rules do not pick it out) and refuses it before forwarding, naming the rule, under a deny or an ask; so are every other provider-side tool and MCP connector a request names. WebFetch fetches from the CLI’s own process without asking the Control Center: domain rules and the address guard of web_fetch do not reach it, only the sandbox (where it applies) bounds its network. web_fetch and web_search are not served to it over MCP.',
      testedBy: 'test/security/model-proxy-provider-tools.test.ts > Claude Code’s WebSearch through the model proxy (SEC-8) > works under a rule allowing network egress and is refused, naming the rule, under a deny',
    });
  }
  const fake = /tested against a fake/i.test(reads.detail) ? ' (Tested against a fake.)' : '';
  return row({
    capability: 'webEgress',
    level: 'none',
    detail: `${adapter.label} keeps its own web access (${RUNNER_WEB_TOOLS[adapter.id] ?? 'its own tools'}), which runs without asking the Control Center: domain rules do not reach it, and the address guard of web_fetch does not apply. web_fetch and web_search are not served to it over MCP. Only the sandbox (where it applies) bounds its network.${fake}`,
    testedBy: reads.testedBy,
  });
}

const LEVEL_MARK: Readonly<Record<EnforcementLevel, string>> = { enforced: '✅ enforced', partial: '🟡 partial', none: '❌ none', notApplicable: '➖ n/a' };

/** The matrix as Markdown tables (one per adapter), embedded verbatim in docs/honesty-matrix.md. */
export function renderHonestyMatrixMarkdown(matrix: HonestyMatrix = honestyMatrix()): string {
  const escape = (text: string) => text.replace(/\|/g, '\\|');
  return matrix.adapters
    .map((adapter) => {
      const lines = [`### ${adapter.label} (\`${adapter.id}\`)`, '', '| capability | where | level | detail | tested by |', '|---|---|---|---|---|'];
      for (const row of adapter.rows) {
        const where = row.mode ?? 'all modes';
        lines.push(`| ${row.capability} | ${where} | ${LEVEL_MARK[row.level]} | ${escape(row.detail)} | \`${escape(row.testedBy)}\` |`);
      }
      return lines.join('\n');
    })
    .join('\n\n');
}

/**
 * Whether a transport's declaration backs an `enforced` claim for `row` (ADP-1): a gate the
 * transport declares, a completion contract it declares for the row's mode (every mode with an
 * output verb when the row names none), no native tools for "sees the native tools", the sandbox,
 * and a structural mode for "how the mode is passed".
 */
function declares(capabilities: TransportCapabilities, row: HonestyRow): boolean {
  const modes = row.mode ? [row.mode] : MODES;
  switch (row.key) {
    case 'completionContract':
      return modes.filter((mode) => getCapabilityProfile(mode).outputVerb !== null).every((mode) => capabilities.completionContract.includes(mode));
    case 'nativeTools':
      return !capabilities.nativeTools;
    case 'sandbox':
      return capabilities.sandbox;
    case 'skills':
      return capabilities.skills === 'scannedOnly' || capabilities.skills === 'hostSkillTool';
    case 'attachments':
      return capabilities.imageAttachments === true;
    case 'operatorMcpServers':
      return capabilities.gates.productTools;
    case 'modes':
      return modes.every((mode) => capabilities.structuralModes.includes(mode));
    case 'webEgress':
      // A transport with no native tools reaches the web only through web_fetch, which the rules decide.
      return !capabilities.nativeTools;
    default:
      return capabilities.gates[row.key];
  }
}

/**
 * Every claim the matrix makes beyond what the transports declare: an adapter without a declaration,
 * or an `enforced` row its transport's declaration does not back. Empty when the matrix is honest.
 */
export function undeclaredClaims(declarations: readonly TransportCapabilities[], matrix: HonestyMatrix = honestyMatrix()): string[] {
  const byId = new Map(declarations.map((declaration) => [declaration.adapterId, declaration]));
  return matrix.adapters.flatMap((adapter) => {
    const declared = byId.get(adapter.id);
    if (!declared) return [`${adapter.id}: no transport declares its capabilities`];
    return adapter.rows
      .filter((row) => row.level === 'enforced' && !declares(declared, row))
      .map((row) => `${adapter.id}: '${row.capability}'${row.mode ? ` in ${row.mode}` : ''} is marked enforced but the transport does not declare it`);
  });
}

/**
 * SKL-5: the skills row of a runner that declares `hostSkillTool` — no skill discovery of its own, so
 * what it sees is what the server hands it. The text comes from the declaration; `own` says why the
 * runner discovers nothing itself, `bound` what still is not bounded.
 */
function hostSkillToolRow(capabilities: TransportCapabilities, input: { level: EnforcementLevel; own: string; bound: string; testedBy: string }): HonestyRow {
  if (capabilities.skills !== 'hostSkillTool') throw new Error(`${capabilities.adapterId} declares skills '${capabilities.skills}', not 'hostSkillTool'`);
  return row({
    capability: 'skills',
    level: input.level,
    detail: `${capabilities.label}: no skill discovery of its own is in play (${input.own}), so nothing is materialized for it and skills reach it only through the server: the Skills section (installed skills that still match skills-lock.json, and built-ins) and the active repository’s repo-skills index (its skills that pass the scan) in the prompt, and the \`skill\` tool over the Control Center’s MCP server, which loads only the agent’s own loadable skills. A quarantined repo skill and a linked name with nothing installed behind it are never listed, and the tool refuses them. ${input.bound}`,
    testedBy: input.testedBy,
  });
}

/**
 * SKL-5: where each runner's skills come from and what bounds them (one row per adapter; DeepSeek
 * inherits the Claude Agent SDK's).
 */
function skillsRow(adapterId: 'builtin' | 'claude-code' | 'claude-agent-sdk' | 'codex' | 'acp'): HonestyRow {
  switch (adapterId) {
    case 'builtin':
      return row({
        capability: 'skills',
        level: 'enforced',
        detail:
          'Only scanned skills reach the model: installed skills whose folder still hashes to its skills-lock.json entry (the Skills section, the `skill` tool, `/skill:`) and the active repository’s repo skills that pass the same scan (the repo-skills index, `/skill:<repo>:<name>`). A quarantined repo skill is never listed; its files stay ordinary files of the checkout, readable like any other.',
        testedBy: `${REPO_SKILLS} > a write in repos/alpha/ switches to alpha: its scanned skills from all three folders, never the quarantined one`,
      });
    case 'claude-code':
      return row({
        capability: 'skills',
        level: 'partial',
        detail:
          'The prepare stage writes the scanned set (installed skills matching the lock, and the active repository’s scanned repo skills) as a plugin into a server-owned run folder passed with `--plugin-dir` and mounted read-only; the worktree’s own `.claude/skills/` is not loaded (`--setting-sources \'\'`). The real binary is shown listing an installed skill, and the active repository’s scanned repo skill but not its quarantined one. Partial: that the checkout’s own `.claude/skills/` stays unread rests on `--setting-sources` (observed with 2.1.197, not asserted by a test), and machine-wide managed locations are outside the server’s control.',
        testedBy: `${CLAUDE_SKILLS} > materializes the installed skill as a plugin and the binary offers it to the model`,
      });
    case 'claude-agent-sdk':
      return row({
        capability: 'skills',
        level: 'partial',
        detail:
          'The prepare stage writes the scanned set (installed skills matching the lock, and the active repository’s scanned repo skills) as a plugin into a server-owned run folder, handed to the SDK’s `plugins` option and mounted read-only; with no setting sources the engine does not load the worktree’s own `.claude/skills/`. The real SDK engine is shown listing the installed skill and the scanned repo skill while a quarantined skill in the worktree’s `.claude/skills/` and a never-installed linked name reach nothing. Partial: machine-wide managed locations are outside the server’s control.',
        testedBy: `${SDK_SKILLS} > offers the installed skill and the active repository’s scanned skill, never the quarantined or the unscanned one`,
      });
    case 'codex':
      return row({
        capability: 'skills',
        level: 'partial',
        detail:
          'The prepare stage writes the scanned set (installed skills matching the lock, and the active repository’s scanned repo skills) into a server-owned run folder, mounted read-only and handed to the app-server as its only extra skills root (`skills/extraRoots/set`); bundled system skills are off in config.toml, and before the thread and every turn each other skill Codex’s own listing shows (the checkout’s `.agents/skills/`, `$CODEX_HOME/skills/`, `~/.agents/skills/`) is switched off by path (`skills/config/write`, a `[[skills.config]]` entry), the listing read again and the turn failed if anything unscanned is still enabled. The real app-server is shown listing exactly the installed and the scanned repo skill, and none of a hostile checkout’s (quarantined, nested, linked) or a planted `CODEX_HOME` skill. A `SKILL.md` written during a turn is not offered either: Codex 0.171.0 renders its listing once when a turn starts (its skills watcher notices the file mid-turn but adds nothing to the running turn; a `skills/config/write` sent mid-turn did not show in the listing until the turn ended, so the switch-off happens before the next turn), which the real app-server is shown doing. Partial: that mid-turn behaviour is Codex’s, not the server’s (a test fails should a later Codex change it), and the checkout’s files stay readable to the model like any other file.',
        testedBy: `${CODEX_SKILLS} > lists the installed skill and the active repository’s scanned skill and reads a body from the run’s folder; never the quarantined or the unscanned one`,
      });
    case 'acp':
      return row({
        capability: 'skills',
        level: 'partial',
        detail:
          'ACP’s `session/new` has no skills option, so the prepare stage writes the scanned set (installed skills matching the lock, and the active repository’s scanned repo skills) where ACP agents look on their own: the checkout’s `.agents/skills/<name>/` and `.claude/skills/<name>/`, confined (no link followed on the way, nothing written over a folder that is not the server’s own, the previous run’s copies removed only while unchanged) and kept out of commits by `.git/info/exclude`. The real claude-agent-acp agent is shown offering the installed skill and the scanned repo skill to the model, and not the repository’s quarantined skill or a never-installed linked name. The Skills section and the `skill` tool (over MCP) come from the shared prepare stage. Partial: the agent’s own discovery also reads skills the server did not scan — the repository’s own skills in those folders (a quarantined one shipped in `.claude/skills/` is read by a Claude-based agent, which loads project settings) and its private HOME — and the copies sit in the agent’s writable checkout.',
        testedBy: `${ACP_SKILLS} > materializes the installed and the scanned repo skill into the checkout and claude-agent-acp offers them; never the quarantined or the unscanned one`,
      });
  }
}
