import type { ScanFinding, ScanRule } from '../scan-types.js';

/** Executable formats: ELF, Mach-O (both byte orders, fat), PE/COFF, and compiled Python/Java. */
const EXECUTABLE_MAGIC: ReadonlyArray<readonly number[]> = [
  [0x7f, 0x45, 0x4c, 0x46],
  [0xfe, 0xed, 0xfa, 0xce],
  [0xfe, 0xed, 0xfa, 0xcf],
  [0xce, 0xfa, 0xed, 0xfe],
  [0xcf, 0xfa, 0xed, 0xfe],
  [0xca, 0xfe, 0xba, 0xbe],
  [0x4d, 0x5a],
];
const COMPILED_EXTENSIONS = /\.(?:pyc|pyo|class|so|dylib|dll|exe|wasm|jar|node)$/i;

/** True when `bytes` cannot be read as UTF-8 text (a NUL byte or invalid UTF-8). */
export function isBinary(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return true;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return false;
  } catch {
    return true;
  }
}

/** SKL-3 `binary-file`: executables are quarantined (the scan cannot read them); other binaries warn. */
export const binaryFile: ScanRule = {
  id: 'binary-file',
  severity: 'quarantine',
  description: 'holds a binary file',
  checkEntry(entry): ScanFinding[] {
    if (entry.kind !== 'file' || !entry.content) return [];
    const bytes = entry.content;
    const executable = EXECUTABLE_MAGIC.some((magic) => magic.every((byte, index) => bytes[index] === byte)) || COMPILED_EXTENSIONS.test(entry.path);
    if (executable) return [{ ruleId: 'binary-file', severity: 'quarantine', file: entry.path, line: 0, message: 'is a compiled executable or library the scan cannot read' }];
    if (isBinary(bytes)) return [{ ruleId: 'binary-file', severity: 'warn', file: entry.path, line: 0, message: 'is a binary file the scan cannot read' }];
    return [];
  },
};
