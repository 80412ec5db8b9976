import type { AgentEvent } from '../../harness/agent-events.js';
import type { ToolResult } from '../../tools/define-tool.js';

/**
 * HAR-4 observed by the host, not reported by the runner: whether an external run delivered its
 * mode's output verb (`submit_plan`, `propose_orchestration`, …), as the Control Center's own MCP
 * server saw it execute.
 *
 * Why the host and not the runner's event stream: a command the agent runs, under the runner's user
 * id, can write lines into the runner's output pipe, so a stream item saying "submit_plan completed"
 * proves nothing; and an agent that does not report its MCP calls would be flagged although it
 * delivered. Every output verb of an external run is executed by this process's MCP server (the run
 * token and the run's MCP tools live only in the process executing the run, `RunTokens` and
 * `RunExecutor.mcpRuns`), so the record is kept in memory beside them, one per run.
 */
export class OutputVerbDelivery {
  private deliveredByHost = false;
  /** An `output_verb_delivered` event is already in the run log (the runner's, confirmed, or ours). */
  private announced = false;

  constructor(readonly verb: string) {}

  /** Called by the MCP server's tool path once the host executed `toolName` for this run. */
  noteExecuted(toolName: string, result: ToolResult): void {
    if (toolName === this.verb && !result.isError) this.deliveredByHost = true;
  }

  /** True once the host's MCP server executed the output verb successfully for this run. */
  get delivered(): boolean {
    return this.deliveredByHost;
  }

  /**
   * The event to record in place of one a transport emits: a runner's "verb delivered" claim passes
   * only when the host executed the verb (the runner sees the MCP answer, so it cannot truthfully
   * report the call before the host recorded it); otherwise it is replaced by a `protocol_error`
   * saying the claim was not counted. Other events pass unchanged.
   */
  screen(event: AgentEvent): AgentEvent | null {
    if (event.type !== 'output_verb_delivered') return event;
    if (!this.deliveredByHost) {
      return {
        type: 'protocol_error',
        source: 'completion-contract',
        message: `The runner reported a delivery of ${this.verb} that the Control Center MCP server never executed successfully for this run; not counted (HAR-4).`,
      };
    }
    if (this.announced) return null;
    this.announced = true;
    return event;
  }

  /** At the run's end: the `output_verb_delivered` event for a delivery the runner never reported, once. */
  unreported(): AgentEvent | null {
    if (!this.deliveredByHost || this.announced) return null;
    this.announced = true;
    return { type: 'output_verb_delivered', toolName: this.verb };
  }
}
