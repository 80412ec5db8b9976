/**
 * Runs every `bench/*.bench.ts` (or only those named on the command line), prints each figure as
 * `BENCH <name> <metric>=<value> <unit>` and writes them to `bench/results/<name>.json`.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Benchmark } from './figure.js';

const benchDir = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const names = readdirSync(benchDir)
  .filter((file) => file.endsWith('.bench.ts'))
  .map((file) => file.slice(0, -'.bench.ts'.length))
  .filter((name) => wanted.length === 0 || wanted.includes(name))
  .sort();

if (names.length === 0) {
  console.error(`no benchmark matches ${wanted.join(', ')}`);
  process.exit(1);
}

mkdirSync(join(benchDir, 'results'), { recursive: true });
for (const name of names) {
  const module = (await import(pathToFileURL(join(benchDir, `${name}.bench.ts`)).href)) as { default: Benchmark };
  const figures = await module.default();
  for (const figure of figures) {
    const value = Number.isInteger(figure.value) ? figure.value : Number(figure.value.toPrecision(4));
    console.log(`BENCH ${name} ${figure.metric}=${value} ${figure.unit}`);
  }
  writeFileSync(join(benchDir, 'results', `${name}.json`), JSON.stringify({ name, figures }, null, 2));
}
