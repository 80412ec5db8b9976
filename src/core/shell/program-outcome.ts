import type { EffectClass } from '../effect-classes.js';
import type { ShellWord } from './shell-words.js';

/** A command another command runs (`find -exec rm {} ;`, `xargs rm`), classified as its own subcommand. */
export interface NestedCommand {
  readonly argv: readonly ShellWord[];
}

/**
 * What one program invocation does, as its rule reports it. The walker turns it into a subcommand:
 * paths in `writes` are located against the current directory (inside → worktree write, outside →
 * fileWriteOutsideWorktree, unknown → both).
 */
export interface ProgramOutcome {
  /** Effect classes caused directly. */
  readonly classes?: readonly EffectClass[];
  /** Paths written (created, changed, moved or deleted). */
  readonly writes?: readonly ShellWord[];
  /** Runs code the classifier cannot read (`python -c`, `perl -e`): the unknown-code classes apply. */
  readonly unknownCode?: boolean;
  /** Executes what it reads on stdin as code when nothing else is given (an interpreter without a script). */
  readonly stdinCode?: boolean;
  /** The program or its subcommand is not recognised: the most restrictive reading applies. */
  readonly unknown?: boolean;
  /** Code this program runs from a file (SEC-5): read and walked when possible, unseen code otherwise. */
  readonly codeFile?: CodeFile;
  /** Commands this program runs. */
  readonly nested?: readonly NestedCommand[];
  /** Shell source this program runs (`sh -c`, `eval`, `su -c`, `trap`): parsed and walked. */
  readonly script?: ShellWord;
  /** `cd`/`pushd`: the new directory; `null` = home. */
  readonly changeDirectory?: ShellWord | null;
  /** `popd`: the directory stack pops. */
  readonly popDirectory?: boolean;
  /**
   * The arguments command-prefix rules match, when the program has options that may stand before
   * its subcommand (`git -C repo push` is matched as `git push`). Defaults to the arguments as written.
   */
  readonly ruleArgs?: readonly ShellWord[];
}

/**
 * Code a program runs from a file the classifier may be able to read (SEC-5). The walker reads it
 * through the injected `WorktreeFiles`; when it cannot (no reader, outside the worktree, missing,
 * too big, not understood) the unknown-code classes apply instead.
 * - `shellFile`: a shell runs the file (`bash d.sh`, `source d.sh`); `exec`: the kernel runs it
 *   (`./d.sh`), so only a shell shebang (or none) makes it readable.
 * - `make`: make runs recipes of a Makefile.
 * - `packageScript`: a package manager runs `package.json` scripts (`npm test`, `yarn build`).
 * - `gitMetadata`: git runs hooks and config-named programs of the repository it finds.
 */
export type CodeFile =
  | { readonly kind: 'shellFile'; readonly path: ShellWord; readonly how: 'shell' | 'source' | 'exec' }
  | { readonly kind: 'make'; readonly makefile: ShellWord | null; readonly directory: ShellWord | null; readonly targets: readonly ShellWord[] }
  | {
      readonly kind: 'packageScript';
      readonly manager: 'npm' | 'yarn' | 'pnpm' | 'bun';
      readonly script: ShellWord;
      /** Extra arguments npm appends to the script's command line (`npm test -- --watch`). */
      readonly extraArgs: readonly ShellWord[];
      /** Whether `pre<name>`/`post<name>` scripts run too. */
      readonly prePost: boolean;
    }
  /**
   * git in the repository found from the current directory after `git -C <dirs>`: it may run hooks
   * and programs named by the repository's config, read through the reader (SEC-5). `elsewhere`:
   * `--git-dir`/`--work-tree` name metadata the reader does not look at.
   */
  | { readonly kind: 'gitMetadata'; readonly directories: readonly ShellWord[]; readonly elsewhere: boolean };

/** What a rule may know about the invocation beyond its arguments. */
export interface ProgramContext {
  /** stdin is fed by a pipe, heredoc or herestring. */
  readonly stdinFed: boolean;
}

/** Classifies one invocation of a program from its arguments (argv without the program name). */
export type ProgramRule = (args: readonly ShellWord[], context: ProgramContext) => ProgramOutcome;

/** A reading command: no effect. */
export const NO_EFFECT: ProgramOutcome = {};

/** The current directory as a word, for programs that write where they run (`git commit`, `wget`). */
export const CURRENT_DIRECTORY: ShellWord = { value: '.', raw: '.' };
