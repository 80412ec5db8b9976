import { homedir } from 'node:os';
import { join } from 'node:path';

/** Default data root: `$CONTROL_CENTER_DATA_DIR`, else `~/.control-center` (never the source tree). */
export function defaultDataDir(): string {
  return process.env.CONTROL_CENTER_DATA_DIR || join(homedir(), '.control-center');
}

/** Default port: `$CONTROL_CENTER_PORT`, else 4317. */
export function defaultPort(): number {
  const fromEnv = Number(process.env.CONTROL_CENTER_PORT);
  return Number.isInteger(fromEnv) && fromEnv >= 0 ? fromEnv : 4317;
}
