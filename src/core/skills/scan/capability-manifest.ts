import type { Decision } from '../../decisions.js';
import type { EffectClass } from '../../effect-classes.js';
import { NETWORK_EGRESS, SECRET_READ } from './rules/secret-exfiltration.js';
import { CAPABILITY_EFFECT_CLASS, SKILL_CAPABILITIES, type CapabilityEvidence, type ScanFinding, type SkillCapability, type TextFile } from './scan-types.js';

const SCRIPT_EXTENSION = /\.(?:sh|bash|zsh|fish|ps1|bat|cmd|py|js|mjs|cjs|ts|rb|pl|php)$/i;

/** Line patterns that show a capability (SKL-3); a script file (by extension or shebang) runs a shell by itself. */
const CAPABILITY_PATTERNS: Readonly<Record<SkillCapability, readonly RegExp[]>> = {
  runsShell: [/^\s*```\s*(?:bash|sh|shell|zsh|console|powershell|ps1)\b/i, /\b(?:child_process|subprocess|os\.system|spawnSync|execSync|execFile)\b/],
  writesFiles: [/(?:^|[^<>=!\d])>{1,2}\s*["']?(?:\/|~|\$\{?HOME)/, /\btee\s+(?:-a\s+)?["']?(?:\/|~|\$HOME)/, /\b(?:writeFile(?:Sync)?|appendFile(?:Sync)?|createWriteStream)\s*\(/, /\bopen\s*\([^)]*["'][wa]\+?b?["']/],
  deletes: [/(?:^|[\s;&|(])rm\s+/, /\b(?:unlink(?:Sync)?|rmSync|rmtree|rimraf|Remove-Item|os\.remove|fs\.rm)\b/],
  network: NETWORK_EGRESS,
  secrets: SECRET_READ,
  installsPackages: [/\b(?:npm|pnpm|yarn|bun)\s+(?:i|install|add)\b/, /\bnpx\s+\S/, /\bpip[0-9.]*\s+install\b|\buv\s+(?:pip\s+install|add)\b/, /\b(?:apt(?:-get)?|yum|dnf|apk|brew|pacman)\s+(?:install|add|-S)\b/, /\b(?:cargo|gem|go)\s+install\b/],
};

/**
 * Derives the capability manifest of a skill (SKL-3): for each capability, the first file and line
 * that shows it, with the workspace-scope decision for its effect class (POL-2). Conservative by
 * design: a pattern in prose counts too, because prose in SKILL.md is what tells the agent to act.
 */
export function deriveCapabilities(files: readonly TextFile[], decisions: Readonly<Record<EffectClass, Decision>>): CapabilityEvidence[] {
  const found = new Map<SkillCapability, { file: string; line: number }>();
  for (const file of files) {
    if (!found.has('runsShell') && (SCRIPT_EXTENSION.test(file.path) || file.lines[0]?.startsWith('#!'))) found.set('runsShell', { file: file.path, line: 1 });
    for (const capability of SKILL_CAPABILITIES) {
      if (found.has(capability)) continue;
      const index = file.lines.findIndex((line) => CAPABILITY_PATTERNS[capability].some((pattern) => pattern.test(line)));
      if (index !== -1) found.set(capability, { file: file.path, line: index + 1 });
    }
  }
  return SKILL_CAPABILITIES.filter((capability) => found.has(capability)).map((capability) => {
    const effectClass = CAPABILITY_EFFECT_CLASS[capability];
    return { capability, effectClass, ...found.get(capability)!, decision: decisions[effectClass] };
  });
}

/**
 * The capability check against the workspace policy (SKL-3): a capability whose effect class the
 * workspace denies quarantines the skill; one that asks is a warning (each use will still be gated).
 */
export function capabilityFindings(capabilities: readonly CapabilityEvidence[]): ScanFinding[] {
  return capabilities.flatMap((evidence): ScanFinding[] => {
    if (evidence.decision === 'deny') {
      return [{ ruleId: 'capability-denied', severity: 'quarantine', file: evidence.file, line: evidence.line, message: `${evidence.capability} (${evidence.effectClass}) is denied by the workspace policy` }];
    }
    if (evidence.decision === 'ask') {
      return [{ ruleId: 'capability-asks', severity: 'warn', file: evidence.file, line: evidence.line, message: `${evidence.capability} (${evidence.effectClass}) needs approval under the workspace policy` }];
    }
    return [];
  });
}
