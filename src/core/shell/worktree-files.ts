/**
 * A read-only, synchronous view of the files of one worktree, injected into the classifier so that it
 * can look at code a command runs (a shell script, a Makefile, `package.json` scripts) without doing
 * I/O itself: core stays pure, the service layer supplies the reader (SEC-5).
 *
 * Contract for implementations: `relativePath` is `/`-separated, relative to the worktree root, with
 * no `.`/`..` segments and no leading `/` (the classifier only asks for such paths). The reader returns
 * the file's UTF-8 text, or `null` when the file is missing, not a regular file, larger than
 * {@link WORKTREE_FILE_SIZE_CAP}, or resolves (through any symlink) to somewhere outside the worktree.
 * A `null` is never an error: the classifier falls back to the unseen-code classes.
 */
export interface WorktreeFiles {
  read(relativePath: string): string | null;
  /**
   * True when the worktree has a directory entry at `relativePath` (even one `read` refuses), so a
   * lookup such as make's `GNUmakefile`, `makefile`, `Makefile` stops where make would.
   */
  exists(relativePath: string): boolean;
}

/** Largest file the classifier reads; bigger ones are unseen code. */
export const WORKTREE_FILE_SIZE_CAP = 256 * 1024;

/** Most files one classification reads (scripts calling scripts, Makefiles, package.json files). */
export const MAX_FILES_PER_CLASSIFICATION = 32;
