import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAME = 'control-center';

/**
 * The product's version, read from its own package.json. Exports name the tool that wrote them with
 * its version so a consumer can tell which build produced a file. The module sits at a different
 * depth under src/ (run with tsx) and dist/ (built), so it walks up to the package rather than
 * assuming a fixed relative path.
 */
function readProductVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (manifest.name === PACKAGE_NAME && typeof manifest.version === 'string') return manifest.version;
    } catch {
      // No package.json at this level (or not ours): keep walking up.
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the ${PACKAGE_NAME} package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

export const PRODUCT_VERSION = readProductVersion();
