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
