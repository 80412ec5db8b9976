import type { ScanFinding, ScanRule } from '../scan-types.js';

export const SECRET_READ: readonly RegExp[] = [
  /\$\{?[A-Z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|PRIVATE_KEY|ACCESS_KEY|CREDENTIALS?)[A-Z0-9_]*\}?/,
  /process\.env\b|os\.environ\b|os\.getenv\s*\(|\bprintenv\b|\benv\s*\|/,
  /~\/\.ssh\b|\.ssh\/id_[a-z0-9]+|\.aws\/credentials|\.netrc\b|\.npmrc\b|\.pypirc\b|\.docker\/config\.json|\.git-credentials|\.config\/gh\/hosts|\bkeychain\b|\/etc\/shadow|(?:^|[\s'"/])\.env(?:\.[a-z]+)?\b/i,
];
export const NETWORK_EGRESS: readonly RegExp[] = [
  /\b(?:curl|wget|nc|ncat|netcat|socat|scp|rsync|ftp|telnet)\b/,
  /\bfetch\s*\(|\baxios\b|\bXMLHttpRequest\b|\bhttps?\.request\s*\(|\brequests\.(?:get|post|put)\b|\burllib\b|\bhttpx\b|\bsocket\.(?:socket|connect)\b|Invoke-WebRequest|\/dev\/tcp\//,
  /https?:\/\/(?!localhost\b|127\.0\.0\.1\b)/,
];

function firstLine(lines: readonly string[], patterns: readonly RegExp[]): number {
  const index = lines.findIndex((line) => patterns.some((pattern) => pattern.test(line)));
  return index === -1 ? 0 : index + 1;
}

/** SKL-3 `secret-exfiltration`: one file both reads a secret and talks to the network. */
export const secretExfiltration: ScanRule = {
  id: 'secret-exfiltration',
  severity: 'quarantine',
  description: 'reads secrets and sends data over the network in the same file',
  checkText(file): ScanFinding[] {
    // Network first: most files never talk to the network, and its patterns are the cheaper ones.
    const networkLine = firstLine(file.lines, NETWORK_EGRESS);
    const secretLine = networkLine === 0 ? 0 : firstLine(file.lines, SECRET_READ);
    if (secretLine === 0 || networkLine === 0) return [];
    return [
      {
        ruleId: 'secret-exfiltration',
        severity: 'quarantine',
        file: file.path,
        line: networkLine,
        message: `reads a secret (line ${secretLine}) and sends data over the network (line ${networkLine})`,
      },
    ];
  },
};
