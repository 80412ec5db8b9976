/** What one command run in a conversation's checkout produced. */
export interface CheckoutCommandResult {
  /** Raw bytes: a `git bundle create -` writes binary to stdout. */
  stdout: Buffer;
  stderr: string;
  /** Exit status; `null` when the process was killed by a signal. */
  exitCode: number | null;
}

/**
 * Runs a command (git, or `sh -c` around a few git commands) with the conversation's checkout as its
 * working directory, in a place where the checkout's own git config and hooks can affect nothing but
 * that place (SEC-2, SEC-3): the OS sandbox when the host has one. The checkout's `.git` is the
 * agent's to edit, so the server never runs git there in its own process.
 */
export type CheckoutRunner = (argv: readonly string[], env?: Record<string, string>, output?: CheckoutOutputCap) => Promise<CheckoutCommandResult>;

/**
 * How much of each stream the server keeps of a command that runs code it does not control (a review
 * gate runs the change's own tests, SEC-10): the newest bytes with `keepTail`. Without it every byte
 * is kept — for the server's own git commands, whose whole output is the result.
 */
export interface CheckoutOutputCap {
  maxBytes: number;
  keepTail?: boolean;
}

/** Identity of commits the server makes in a checkout (checkpoints), so no `user.name` is needed. */
export const SERVER_GIT_IDENTITY: Readonly<Record<string, string>> = {
  GIT_AUTHOR_NAME: 'Control Center',
  GIT_AUTHOR_EMAIL: 'control-center@localhost',
  GIT_COMMITTER_NAME: 'Control Center',
  GIT_COMMITTER_EMAIL: 'control-center@localhost',
};
