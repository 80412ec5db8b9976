export { DECISIONS, decisionSeverity, mostRestrictive, type Decision } from './decisions.js';
export {
  EFFECT_CLASSES,
  DEFAULT_EFFECT_DECISIONS,
  WORLD_CHANGING_EFFECT_CLASSES,
  canonicalEffectClasses,
  isEffectClass,
  type EffectClass,
} from './effect-classes.js';
export { TOOL_TIERS, tierRank, isToolTier, isMutatingTool, validateToolDescriptor, type ToolTier, type ToolDescriptor } from './tool-descriptor.js';
export { validateToolRegistry } from './tool-registry.js';
export {
  MODES,
  AUTONOMY_LEVELS,
  DEFAULT_AUTONOMY,
  MODE_LABELS,
  AUTONOMY_LABELS,
  USER_SELECTABLE_MODES,
  isMode,
  isAutonomyLevel,
  type Mode,
  type AutonomyLevel,
} from './modes.js';
export {
  CAPABILITY_PROFILES,
  ALL_PINNED_TOOLS,
  ASK_USER_TOOL,
  SUBMIT_PLAN_TOOL,
  PROPOSE_ORCHESTRATION_TOOL,
  EXIT_PLAN_MODE_TOOL,
  REVIEW_ALLOWLIST,
  getCapabilityProfile,
  type CapabilityProfile,
  type CompletionSpec,
  type ToolSurfaceSpec,
  type WorktreeState,
} from './capability-profiles.js';
export { buildToolSurface, missingPinnedTools, type SurfaceRules } from './tool-surface.js';
export { buildGuardPreset, modeForbidRuleId, modeReadOnlyRuleId, type GuardPreset, type GuardPresetRule, type GuardPresetMatch } from './guard-preset.js';
export { worktreeState } from './worktree-state.js';
export { buildCapabilityPreamble } from './capability-preamble.js';
export { buildCompletionContract, type CompletionContract } from './completion-contract.js';
export { PICKER_VALUES, pickerToSpaceMode, spaceModeToPicker, nextPickerValue, type PickerValue, type SpaceModeState } from './picker.js';
export {
  resolveDispatchMode,
  resolvePipelineNodeMode,
  SPACE_OPENING_NODE_DEFAULTS,
  PINNABLE_NODE_MODES,
  type SpaceModeRecord,
} from './mode-resolution.js';
export { checkDelegation, DEFAULT_DELEGATION_DEPTH, type DelegationRequest, type DelegationVerdict } from './delegation-guard.js';
export { loadShellParser, isShellParserLoaded } from './shell/shell-parser.js';
export {
  classifyShellCommand,
  UNKNOWN_CODE_CLASSES,
  type ShellClassification,
  type ShellSubcommand,
  type ClassifyOptions,
} from './shell/classify-command.js';
export { isSecretPath, isSecretVariable } from './shell/path-location.js';
export { WORKTREE_FILE_SIZE_CAP, MAX_FILES_PER_CLASSIFICATION, type WorktreeFiles } from './shell/worktree-files.js';
export { RULE_SCOPES, tokenizeCommandPrefix, validatePolicyRule, type PolicyRule, type RuleMatch, type RuleScope } from './policy/policy-rule.js';
export { InvalidPolicyRuleError } from './policy/invalid-policy-rule-error.js';
export { compilePolicy, type CompiledPolicy } from './policy/compile-policy.js';
export { decideAction } from './policy/decide-action.js';
export { applyAutonomyDial, autonomyRuleId } from './policy/autonomy-dial.js';
export { applyApproverAvailability } from './policy/approver-availability.js';
export { fingerprintAction, rememberChoiceRule, type RememberedChoice } from './policy/remembered-choice.js';
export { toolAction, shellAction, type PolicyAction, type PolicyContext, type ActionSubcommand } from './policy/policy-action.js';
export type { PolicyDecision, DecidedBy, DecisionScope } from './policy/policy-decision.js';
