export { CheckedPathFiles } from './checked-path-files.js';
export { ConfinedFiles } from './confined-files.js';
export { procFdSupported } from './proc-fd-support.js';
export { readConfinedFile, readConfinedFileSync, type ReadConfinedFileOptions } from './read-confined-file.js';
export type { WalkedFile } from './walked-file.js';
export type { WorktreeFiles } from './worktree-files.js';
