/**
 * One finding of the pipeline validator (PIPE-1): errors refuse the definition, warnings are shown
 * with it (MODE-5's ignored `extras` spellings). Every finding names its node when it has one.
 */
export interface PipelineIssue {
  severity: 'error' | 'warning';
  code:
    | 'schema'
    | 'duplicate_key'
    | 'duplicate_output_key'
    | 'reserved_key'
    | 'unknown_dependency'
    | 'self_dependency'
    | 'cycle'
    | 'placeholder_not_upstream'
    | 'space_from_not_upstream'
    | 'bad_expression'
    | 'bad_cron'
    | 'bad_output_schema'
    | 'unknown_agent'
    | 'mode_ignored'
    | 'parse';
  message: string;
  /** The node the finding is about, when there is one. */
  nodeKey?: string;
  /** Dotted path into the definition (`nodes.3.dependsOn.0`, `triggers.1.cron`). */
  field: string;
}
