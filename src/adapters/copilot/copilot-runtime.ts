import { existsSync, realpathSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join } from 'node:path';

/**
 * Where the native Copilot runtime is: `$CONTROL_CENTER_COPILOT_PATH`, else the npm platform package
 * `@github/copilot-<platform>-<arch>` installed beside `@github/copilot`. The SDK's own lookup wants
 * an `index.js` these platform packages no longer ship, so the transport always names the binary.
 */
export function resolveCopilotRuntime(env: Record<string, string | undefined>): { binary: string; packageDir: string } {
  const configured = env.CONTROL_CENTER_COPILOT_PATH;
  if (configured) return { binary: configured, packageDir: dirname(configured) };
  const loader = realpathSync(new URL(import.meta.resolve('@github/copilot/package.json')).pathname);
  const scope = dirname(dirname(loader));
  const variants = process.platform === 'linux' ? ['linux', 'linuxmusl'] : [process.platform];
  for (const variant of variants) {
    const packageDir = join(scope, `copilot-${variant}-${process.arch}`);
    const binary = join(packageDir, 'copilot');
    if (existsSync(binary)) return { binary: realpathSync(binary), packageDir: realpathSync(packageDir) };
  }
  throw new Error(`the Copilot runtime is missing (is @github/copilot-${variants[0]}-${process.arch} installed?)`);
}

/**
 * The absolute path of `command` (the SDK refuses a runtime path that is not an existing file, and a
 * sandbox launcher such as `bwrap` is named bare): itself when absolute, else its first match on PATH.
 */
export function absoluteCommand(command: string, path: string | undefined): string {
  if (isAbsolute(command)) return command;
  for (const directory of (path ?? '').split(delimiter).filter((entry) => isAbsolute(entry))) {
    const candidate = join(directory, command);
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`${command} is not on PATH`);
}
