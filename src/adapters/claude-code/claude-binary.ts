import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Environment variable naming the `claude` binary to run (overrides the package's). */
export const CLAUDE_PATH_VARIABLE = 'CONTROL_CENTER_CLAUDE_PATH';

/**
 * The `claude` executable: `$CONTROL_CENTER_CLAUDE_PATH`, else the native binary shipped in the
 * `@anthropic-ai/claude-code` package (`bin/claude.exe`, a Linux/macOS executable despite the name),
 * else `claude` on PATH.
 */
export function resolveClaudePath(env: Record<string, string | undefined> = process.env): string {
  const configured = env[CLAUDE_PATH_VARIABLE];
  if (configured) return configured;
  try {
    const packageJson = createRequire(import.meta.url).resolve('@anthropic-ai/claude-code/package.json');
    const binary = join(dirname(packageJson), 'bin', 'claude.exe');
    if (existsSync(binary)) return binary;
  } catch {
    // not installed as a package: fall through to PATH
  }
  return 'claude';
}
