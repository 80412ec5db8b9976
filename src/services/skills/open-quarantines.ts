import type { SkillOverride, SkillScanRecord } from '../../schemas/skill.js';

/**
 * The quarantine reports that still wait for a person (SKL-3): a skill whose newest scan quarantined
 * it, with no override recorded for that report. An older quarantine that a later scan of the same
 * skill passed, or that an operator overrode, is history, not something waiting.
 *
 * `scansNewestFirst` is the scan log as the store lists it (newest first).
 */
export function openQuarantines(scansNewestFirst: readonly SkillScanRecord[], overrides: readonly SkillOverride[]): SkillScanRecord[] {
  const overridden = new Set(overrides.map((override) => override.reportId));
  const seen = new Set<string>();
  const open: SkillScanRecord[] = [];
  for (const scan of scansNewestFirst) {
    if (seen.has(scan.skillName)) continue;
    seen.add(scan.skillName);
    if (scan.report.verdict === 'quarantine' && !overridden.has(scan.id)) open.push(scan);
  }
  return open;
}
