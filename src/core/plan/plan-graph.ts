/**
 * The plan an agent submits in plan mode (PLAN-2): a goal and a graph of steps. Each step names the
 * steps it waits for by key in `dependsOn`. This is the raw, unvalidated shape, as received from the
 * `submit_plan` tool: {@link validatePlanGraph} says whether it is a graph we can run.
 */
export interface PlanSubmission {
  readonly goal: string;
  readonly nodes: readonly PlanNodeInput[];
}

/** One step of a submitted plan (PLAN-2). `dependsOn` lists keys of steps that must be done first. */
export interface PlanNodeInput {
  readonly key: string;
  readonly title: string;
  readonly description: string;
  readonly dependsOn: readonly string[];
}
