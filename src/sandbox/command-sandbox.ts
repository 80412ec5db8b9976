import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { CommandWrapper } from '../tools/node-worktree.js';
import { tryGit } from '../tools/run-git.js';
import type { SandboxBackend, SandboxSpec } from './sandbox-spec.js';
import { selectSandbox, type SandboxSelection } from './select-sandbox.js';

export interface CommandSandboxOptions {
  /**
   * `auto`: bubblewrap/Seatbelt when the host has a working one (probed once), else the SBX-2
   * fallback; `none`: always the fallback; or a backend to use.
   */
  sandbox?: 'auto' | 'none' | SandboxBackend;
  /** Paths the commands must not see (pass the data root: operator token, databases). */
  hiddenPaths?: string[];
  /** Also hide the server user's home directory (~/.ssh, ~/.aws, git credentials). Default true. */
  hideHome?: boolean;
  /**
   * `host` (default): commands share the host's network; egress is decided per command by the policy
   * engine, which classifies `curl`, `npm install`, `git fetch` … as networkEgress (CAP-4 keeps egress
   * at its defaults in every mode, so the mount must not contradict the rules). `loopback`: a network
   * namespace whose only exits are the loopback ports the run needs (the push proxy) — stricter, and
   * then nothing leaves the machine except through the Control Center.
   */
  network?: 'host' | 'loopback';
}

export interface RunSandboxInput {
  worktreePath: string;
  /** The mode's worktree state (CAP-5): read-only modes get a read-only mount, the second copy of the rule. */
  readOnly: boolean;
  /** True for a git worktree: its repository's common dir (objects, refs) is mounted with it. */
  git: boolean;
  /** The workspace's directory (databases, other conversations' worktrees): hidden. */
  workspaceDir: string;
  /** URLs the commands must reach (the push proxy). Loopback ones are relayed; nothing else is reachable. */
  reach: string[];
}

/** What one run's commands get from the sandbox. */
export interface RunSandbox {
  /** The run log's `sandbox` line: `bubblewrap: …`, `seatbelt: …` or `none: …`. */
  description: string;
  /** Starts each command inside the backend; null for the SBX-2 fallback (commands run as they are). */
  wrapCommand: CommandWrapper | null;
  /** Variables the commands need inside the sandbox (HOME on the private /tmp: the real one is hidden). */
  env: Record<string, string>;
}

function loopbackPort(url: string): number | null {
  try {
    const parsed = new URL(url);
    const host = parsed.hostname.replace(/^\[|\]$/g, '');
    if (host !== '127.0.0.1' && host !== 'localhost' && host !== '::1') return null;
    return Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80));
  } catch {
    return null;
  }
}

/**
 * The OS sandbox for the built-in harness's shell commands (SBX-1 for the built-in `bash`): the
 * backend the Claude Code transport uses, applied to each command instead of to a whole runner
 * process. The spec is projected from the mode like every other layer (CAP-2): the worktree (and its
 * git common dir, config and hooks excepted) writable in chat and read-only in read-only modes, the
 * rest of the filesystem read-only, the workspace, the data root and the server user's home hidden,
 * a private /tmp, no capabilities, and the host network (or, with `network: 'loopback'`, a namespace
 * whose only exits are the loopback ports the run needs).
 */
export class CommandSandbox {
  private choice: Promise<SandboxSelection> | null = null;

  constructor(private readonly options: CommandSandboxOptions = {}) {}

  /** The backend commands will use, or why none (probed once). */
  backend(): Promise<SandboxSelection> {
    if (!this.choice) {
      const choice = this.options.sandbox ?? 'auto';
      this.choice =
        choice === 'none'
          ? Promise.resolve({ backend: null, detail: 'disabled by configuration' })
          : choice === 'auto'
            ? selectSandbox()
            : Promise.resolve({ backend: choice, detail: choice.id });
    }
    return this.choice;
  }

  /** The sandbox for one run's commands; without a backend, the fallback and the reason. */
  async forRun(input: RunSandboxInput): Promise<RunSandbox> {
    const { backend, detail } = await this.backend();
    if (!backend) {
      return {
        description: `none: ${detail}; fallback (SBX-2): commands run in the worktree with a sanitized environment, without an OS sandbox`,
        wrapCommand: null,
        env: {},
      };
    }
    const spec = await this.spec(input);
    // Prepared once up front: it names the sandbox for the run log and fails early if it cannot start.
    const probe = await backend.prepare({ ...spec, command: 'true', args: [] });
    await probe.dispose();
    return {
      description: probe.description,
      wrapCommand: async (argv) => backend.prepare({ ...spec, command: argv[0]!, args: argv.slice(1) }),
      env: { HOME: '/tmp', TMPDIR: '/tmp' },
    };
  }

  private async spec(input: RunSandboxInput): Promise<Omit<SandboxSpec, 'command' | 'args'>> {
    const common = input.git ? await tryGit(['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd: input.worktreePath }) : null;
    const gitCommonDir = common?.stdout.trim() || null;
    const ports: number[] = [];
    const remote: string[] = [];
    for (const url of input.reach) {
      const port = loopbackPort(url);
      if (port !== null) ports.push(port);
      else remote.push(url);
    }
    const hidden = [input.workspaceDir, ...(this.options.hiddenPaths ?? [])];
    if (this.options.hideHome !== false) hidden.push(homedir());
    const repository = gitCommonDir ? [gitCommonDir] : [];
    return {
      cwd: input.worktreePath,
      writable: input.readOnly ? [] : [input.worktreePath, ...repository],
      // As for Claude Code: the repository's config and hooks stay read-only even in chat, because
      // the server runs git there later, outside the sandbox, and config can name programs to run.
      readOnly: [
        dirname(process.execPath),
        ...(input.readOnly ? [input.worktreePath, ...repository] : gitCommonDir ? [join(gitCommonDir, 'config'), join(gitCommonDir, 'hooks')] : []),
      ],
      hidden,
      privateTmp: ['/tmp'],
      network:
        (this.options.network ?? 'host') === 'host'
          ? { kind: 'host', reason: 'network egress is decided per command by the policy engine' }
          : remote.length === 0
            ? { kind: 'loopback', ports }
            : { kind: 'host', reason: `the run needs ${remote.join(', ')}, which is not on loopback` },
    };
  }
}
