import type { Mode } from '../core/modes.js';
import type { HonouredSettings } from './agent-field-support.js';
import { declareRunnerCapabilities } from './runner-capabilities.js';

/**
 * What a transport declares it supports (ADP-1), the one source the run routes, the web and the
 * honesty matrix read. A route refuses a control the run's transport does not declare (409 with the
 * reason) instead of answering 200 and doing nothing; the matrix may not claim `enforced` for
 * anything declared `false` here (test/adapters/honesty-matrix.test.ts checks it).
 */
export interface TransportCapabilities {
  /** The agent's `adapterId` this declaration belongs to (`builtin` for the built-in harness). */
  readonly adapterId: string;
  readonly label: string;
  /** `POST …/runs/:runId/steer`: text injected into the running turn before its next model call (HAR-5). */
  readonly steer: boolean;
  /** `POST …/runs/:runId/pause` and `…/resume`: the turn holds before its next model call (HAR-5). */
  readonly pauseResume: boolean;
  /** `POST …/runs/:runId/cancel`: the turn ends `cancelled` (every transport must honour it). */
  readonly cancel: boolean;
  /**
   * How subagents run: `childRuns` — each is a run of its own in the conversation's run tree, gated
   * like its parent (HAR-5); `inRunner` — inside the runner's process, seen only as tool calls in the
   * parent's log. Delegation (`delegate_task`, a product tool) makes child runs on every transport.
   */
  readonly subagents: 'childRuns' | 'inRunner';
  /** The runner brings tools of its own, which the Control Center sees only as far as its hooks reach. */
  readonly nativeTools: boolean;
  /**
   * Where the run's tools execute. `host`: the transport runs the agent loop in the server's process
   * and calls every tool through the run's toolbox (the built-in harness). `runner` (also when not
   * declared, the safe default): an external runner with its own file and shell tools; it reaches the
   * product's tools over MCP with a run-scoped token, and its model traffic is metered by the broker
   * (SEC-6). See {@link runsToolsOnHost}.
   */
  readonly toolExecution?: 'host' | 'runner';
  /** What is decided by the policy engine before it runs, on every call, in every mode. */
  readonly gates: {
    /** The model sees exactly the mode's surface; nothing else can be called. */
    readonly toolSurface: boolean;
    readonly shellCommands: boolean;
    readonly fileWrites: boolean;
    readonly reads: boolean;
    readonly productTools: boolean;
    /** Every push, including one made inside a script, whatever the host. */
    readonly pushes: boolean;
  };
  /** Modes whose completion contract is observed: the output verb exists and the transport sees it delivered (HAR-4). */
  readonly completionContract: readonly Mode[];
  /** Modes the runner is held to structurally (surface, guard, prompt, contract), not by advisory flags. */
  readonly structuralModes: readonly Mode[];
  /** On a host with a sandbox backend, the run's processes are bounded by it (SBX-1). */
  readonly sandbox: boolean;
  /**
   * SKL-5: `scannedOnly` — every skill the runner can discover as a skill passed the scan (the
   * server's prompt and tools, or a materialized folder its own discovery reads instead of the
   * worktree's); `fedUnbounded` — the scanned set is materialized where the runner looks, but its own
   * discovery also reads skills the server did not scan; `hostSkillTool` — the runner has no skill
   * discovery of its own (or it is switched off), so skills reach it only through the server: the
   * Skills section and repo-skills index in its prompt and the `skill` tool over MCP, which carry
   * only scanned skills; `unfed` — the runner's own skill discovery is neither fed nor bounded by the
   * server.
   */
  readonly skills: 'scannedOnly' | 'fedUnbounded' | 'hostSkillTool' | 'unfed';
  /**
   * RLY-3: `none` — the provider has no modes and the relay mode changes nothing it does, so the web
   * hides the mode picker for its agents; absent or `honoured` — modes reach the provider (natively or
   * as the RLY-8 line).
   */
  readonly relayModes?: 'honoured' | 'none';
  /**
   * TOOL-3: the transport hands a message's image attachments to the model as image blocks. Absent
   * or false: a message with images addressed to its agents is refused (400) before anything is
   * recorded; text files reach every transport, inlined into the prompt.
   */
  readonly imageAttachments?: boolean;
  /**
   * TRUTH-1: the agent fields and space settings this transport applies, each with how; the API
   * refuses the rest (400 naming the field and the transport) and the editors hide them.
   */
  readonly honours: HonouredSettings;
}

/**
 * True only for a transport that declares `toolExecution: 'host'`: the run pipeline hands it the
 * run's toolbox and no MCP set. Anything else, including a declaration that says nothing, is treated
 * as an external runner (MCP, runner session, broker metering), so a new transport cannot skip those
 * by omission.
 */
export function runsToolsOnHost(capabilities: TransportCapabilities): boolean {
  return capabilities.toolExecution === 'host';
}

/** The run controls a route can ask for, and the capability each one needs. */
export type RunControl = 'steer' | 'pause' | 'resume' | 'cancel';

const CONTROL_NEEDS: Readonly<Record<RunControl, { flag: 'steer' | 'pauseResume' | 'cancel'; words: string }>> = {
  steer: { flag: 'steer', words: 'steering a running turn' },
  pause: { flag: 'pauseResume', words: 'pausing a running turn' },
  resume: { flag: 'pauseResume', words: 'resuming a paused turn' },
  cancel: { flag: 'cancel', words: 'cancelling a running turn' },
};

/** Why the transport cannot do `control`, naming the transport and the missing capability; null when it can. */
export function missingControl(capabilities: TransportCapabilities, control: RunControl): string | null {
  const need = CONTROL_NEEDS[control];
  if (capabilities[need.flag]) return null;
  return `${capabilities.label} (\`${capabilities.adapterId}\`) does not support ${need.words}: its transport does not declare the \`${need.flag}\` capability`;
}

/** The declaration for an agent whose adapter is not registered on this server: it supports nothing (its runs fail at once). */
export function unavailableCapabilities(adapterId: string): TransportCapabilities {
  return declareRunnerCapabilities({
    adapterId,
    label: `unavailable adapter '${adapterId}'`,
    productToolsOverMcp: false,
    structuralModes: [],
    sandbox: false,
    skills: 'unfed',
    // Nothing runs, so nothing is applied: only what every agent carries is accepted.
    honours: { agentFields: {}, spaceSettings: {} },
  });
}
