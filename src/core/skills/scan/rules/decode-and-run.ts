import type { ScanRule } from '../scan-types.js';
import { matchLines } from './line-rule.js';

/** SKL-3 `decode-and-run`: encoded content is decoded and executed (a way to hide what runs). */
export const decodeAndRun: ScanRule = {
  id: 'decode-and-run',
  severity: 'quarantine',
  description: 'decodes an encoded payload and runs it',
  checkText: (file) =>
    matchLines(
      file,
      'decode-and-run',
      'quarantine',
      [
        /\b(?:base64|base32|xxd|openssl\s+(?:enc|base64))\b[^\n|]*(?:-d\b|--decode\b|-r\b)[^\n]*\|\s*(?:sudo\s+)?(?:(?:ba|z|da)?sh|python[0-9.]*|node|perl|ruby)\b/i,
        /\b(?:eval|exec|Function)\s*\(\s*(?:atob|Buffer\.from|base64\.b64decode|b64decode|codecs\.decode|bytes\.fromhex|zlib\.decompress)\b/i,
        /\bexec\s*\(\s*(?:compile\s*\()?\s*(?:base64|zlib|marshal)\./i,
        /\beval\s+["']?\$\(\s*(?:echo|printf)[^\n]*\|\s*base64\s+(?:-d|--decode)/i,
      ],
      'decodes an encoded payload and executes it',
    ),
};
