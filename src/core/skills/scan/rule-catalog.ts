import { base64Blob } from './rules/base64-blob.js';
import { binaryFile } from './rules/binary-file.js';
import { decodeAndRun } from './rules/decode-and-run.js';
import { destructiveDelete } from './rules/destructive-delete.js';
import { dynamicEval } from './rules/dynamic-eval.js';
import { executableBit } from './rules/executable-bit.js';
import { hiddenHtmlComment } from './rules/hidden-html-comment.js';
import { invisibleCharacters } from './rules/invisible-characters.js';
import { pipeToShell } from './rules/pipe-to-shell.js';
import { promptInjection } from './rules/prompt-injection.js';
import { secretExfiltration } from './rules/secret-exfiltration.js';
import { symlinkEscape } from './rules/symlink-escape.js';
import type { ScanRule } from './scan-types.js';

/**
 * The version of the rule set. Bump it whenever a rule is added, removed or changed: the lock records
 * it, and `verify` reports skills scanned under an older version so they can be re-gated (SKL-3).
 */
export const SCAN_RULES_VERSION = '2026.12-3';

/** Every static rule of the supply-chain scan (SKL-3), in report order. */
export const SCAN_RULES: readonly ScanRule[] = [
  pipeToShell,
  decodeAndRun,
  dynamicEval,
  secretExfiltration,
  destructiveDelete,
  invisibleCharacters,
  promptInjection,
  hiddenHtmlComment,
  base64Blob,
  binaryFile,
  symlinkEscape,
  executableBit,
];
