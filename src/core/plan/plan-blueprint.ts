/**
 * A validated plan compiled for execution (PLAN-7): what the materializer turns into tickets and an
 * execution, with no model involved. Everything is in a stable order so the same plan always yields
 * byte-identical JSON.
 */
export interface PlanBlueprint {
  readonly goal: string;
  /** In topological order: `tickets[i].order === i`, and every ticket comes after its dependencies. */
  readonly tickets: readonly PlanTicket[];
  /** One edge per dependency, `from` the prerequisite `to` the step that waits for it. */
  readonly edges: readonly PlanEdge[];
  /** `levels[d]` holds the keys at depth `d` (longest dependency path from a root), in ticket order. */
  readonly levels: readonly (readonly string[])[];
  /** Keys of steps with no dependencies, in ticket order. */
  readonly roots: readonly string[];
  /** Keys of steps nothing depends on, in ticket order. */
  readonly leaves: readonly string[];
}

/** One step of a compiled plan (PLAN-7): becomes one ticket. */
export interface PlanTicket {
  readonly key: string;
  readonly title: string;
  readonly description: string;
  /** Keys this step waits for, deduplicated and sorted by UTF-16 code unit (locale-independent). */
  readonly dependsOn: readonly string[];
  /** Position in the stable topological order. */
  readonly order: number;
  /** Longest-path depth: 0 for roots, otherwise 1 + the deepest dependency's level. */
  readonly level: number;
}

/** A dependency edge: `to` may start only once `from` is done. */
export interface PlanEdge {
  readonly from: string;
  readonly to: string;
}
