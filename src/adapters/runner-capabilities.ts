import type { TransportCapabilities } from './transport-capabilities.js';

/**
 * What one external runner declares beyond what every external runner has in common (see
 * {@link declareRunnerCapabilities}).
 */
export interface RunnerCapabilityDifferences {
  readonly adapterId: string;
  readonly label: string;
  /**
   * Product tools reach the runner over the Control Center's MCP server, where the policy engine
   * decides each call and the output verbs of plan and orchestrate are seen delivered (HAR-4).
   * False: no MCP is offered, so neither is gated nor observed.
   */
  readonly productToolsOverMcp: boolean;
  /**
   * The host sees every shell command and native file write before it runs (a hook the runner cannot
   * skip) and puts it to the policy engine. Absent or false: some run without asking.
   */
  readonly gatesShellAndWrites?: boolean;
  readonly structuralModes: TransportCapabilities['structuralModes'];
  readonly sandbox: boolean;
  readonly skills: TransportCapabilities['skills'];
  /** TOOL-3: the runner's input carries the operator's images as image blocks; absent: they are refused. */
  readonly imageAttachments?: boolean;
  readonly honours: TransportCapabilities['honours'];
}

/**
 * The declaration of an external runner (ADP-1): a process or SDK with its own agent loop and tools.
 * What holds for every one of them is stated here once — no steer and no pause (a turn's input is
 * fixed when it starts), cancel honoured, subagents inside the runner, native tools of its own, the
 * tool surface, native reads and pushes not decided by the policy engine on every call — so that a
 * transport's declaration names only what sets it apart. The keys keep the order of
 * {@link TransportCapabilities}, so what the API and the honesty matrix print does not change.
 */
export function declareRunnerCapabilities(runner: RunnerCapabilityDifferences): TransportCapabilities {
  const gatesShellAndWrites = runner.gatesShellAndWrites ?? false;
  return {
    adapterId: runner.adapterId,
    label: runner.label,
    steer: false,
    pauseResume: false,
    cancel: true,
    subagents: 'inRunner',
    nativeTools: true,
    gates: {
      toolSurface: false,
      shellCommands: gatesShellAndWrites,
      fileWrites: gatesShellAndWrites,
      reads: false,
      productTools: runner.productToolsOverMcp,
      pushes: false,
    },
    completionContract: runner.productToolsOverMcp ? ['plan', 'orchestrate'] : [],
    structuralModes: runner.structuralModes,
    sandbox: runner.sandbox,
    skills: runner.skills,
    ...(runner.imageAttachments ? { imageAttachments: true } : {}),
    honours: runner.honours,
  };
}
