import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The Rust target triple of the platform packages `@openai/codex` ships its native binary in. */
function targetTriple(): string | null {
  const arch = process.arch === 'x64' ? 'x86_64' : process.arch === 'arm64' ? 'aarch64' : null;
  if (!arch) return null;
  if (process.platform === 'linux') return `${arch}-unknown-linux-musl`;
  if (process.platform === 'darwin') return `${arch}-apple-darwin`;
  return null;
}

/**
 * Where the native Codex binary and its helper directory (`codex-path`, with `rg`) are: from
 * `$CONTROL_CENTER_CODEX_PATH`, else the npm platform package beside `@openai/codex`. The native binary
 * runs directly (no node wrapper), so the sandbox needs to expose only its own directory.
 */
export function resolveCodexBinary(env: Record<string, string | undefined>): { binary: string; pathDir: string | null; packageDir: string } {
  const configured = env.CONTROL_CENTER_CODEX_PATH;
  if (configured) return { binary: configured, pathDir: null, packageDir: dirname(configured) };
  const triple = targetTriple();
  if (!triple) throw new Error(`Codex has no native binary for ${process.platform}/${process.arch}`);
  const wrapper = realpathSync(new URL(import.meta.resolve('@openai/codex/package.json')).pathname);
  const scope = dirname(dirname(wrapper));
  const platformPackage = `codex-${process.platform}-${process.arch}`;
  const vendor = realpathSync(join(scope, platformPackage, 'vendor', triple));
  const binary = join(vendor, 'bin', 'codex');
  if (!existsSync(binary)) throw new Error(`the Codex binary is missing at ${binary} (is @openai/${platformPackage} installed?)`);
  const pathDir = join(vendor, 'codex-path');
  return { binary, pathDir: existsSync(pathDir) ? pathDir : null, packageDir: vendor };
}
