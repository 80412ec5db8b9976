import { accessSync, constants, statSync } from 'node:fs';
import { sharedSpawnHelper } from './spawn-helper.js';
import { VFORK_HELPER_SOURCE } from './vfork-helper-source.js';

/**
 * Where the Python spawn helper (`vfork-helper-source.ts`) can run. Only the system's own Python is
 * considered, by absolute path: a `python3` found on PATH may be a version manager's shim (a shell
 * script that reads the user's home, which a sandbox hides).
 */
const PYTHON_CANDIDATES = ['/usr/bin/python3', '/usr/local/bin/python3'];

/** The Python helper's argv after the interpreter: isolated (no PYTHON* variables, no user site), no `site` import, the program. */
export const VFORK_HELPER_PYTHON_ARGS = ['-I', '-S', '-c', VFORK_HELPER_SOURCE];

/**
 * What the probe runs: every module the program imports (Debian's python3-minimal lacks `json`), and
 * `os.posix_spawn` with `setsid`, which needs Python 3.8.
 */
const PROBE = 'import base64, errno, json, os, selectors, signal, sys, time; os.posix_spawn; sys.exit(0 if sys.version_info >= (3, 8) else 3)';

let probed: Promise<string | null> | null = null;

/**
 * The interpreter the Python helper runs with, or null when this machine has none that can (then the
 * Node helper forks, as before). Probed once per process: the candidate must be an executable file
 * and start the probe successfully.
 */
export function vforkHelperPython(): Promise<string | null> {
  probed ??= (async () => {
    for (const candidate of PYTHON_CANDIDATES) {
      if (!isExecutableFile(candidate)) continue;
      const result = await sharedSpawnHelper()
        .run({ command: candidate, args: ['-I', '-S', '-c', PROBE], cwd: '/', env: {}, detached: false, timeoutMs: 10_000, killGraceMs: 0, drainMs: null, maxOutputBytes: 4_096 })
        .catch(() => null);
      if (result?.exitCode === 0) return candidate;
    }
    return null;
  })();
  return probed;
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
