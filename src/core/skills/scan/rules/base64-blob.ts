import type { ScanFinding, ScanRule } from '../scan-types.js';

/** Length from which an unbroken base64 run counts as an opaque blob (≈ 375 bytes decoded). */
export const BASE64_BLOB_MIN = 500;
const BLOB = new RegExp(`[A-Za-z0-9+/]{${BASE64_BLOB_MIN},}={0,2}`);

/** SKL-3 `base64-blob`: large encoded payloads whose content the scan cannot read. */
export const base64Blob: ScanRule = {
  id: 'base64-blob',
  severity: 'warn',
  description: 'holds a large base64 blob',
  checkText(file): ScanFinding[] {
    const findings: ScanFinding[] = [];
    file.lines.forEach((line, index) => {
      const match = BLOB.exec(line);
      if (match) findings.push({ ruleId: 'base64-blob', severity: 'warn', file: file.path, line: index + 1, message: `holds a base64 blob of ${match[0].length} characters` });
    });
    return findings;
  },
};
