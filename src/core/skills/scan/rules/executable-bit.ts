import type { ScanFinding, ScanRule } from '../scan-types.js';

/** SKL-3 `executable-bit`: a file marked executable can be run directly; shown so the operator knows. */
export const executableBit: ScanRule = {
  id: 'executable-bit',
  severity: 'warn',
  description: 'has files with the executable bit',
  checkEntry(entry): ScanFinding[] {
    if (entry.kind !== 'file' || (entry.mode & 0o111) === 0) return [];
    return [{ ruleId: 'executable-bit', severity: 'warn', file: entry.path, line: 0, message: 'is marked executable' }];
  },
};
