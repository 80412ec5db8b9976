/**
 * Shell classification throughput on the corpus, one core (POL-2: every Bash call is classified before
 * it runs). Nothing is cached: every classification parses with tree-sitter and walks the tree; only
 * the parser instance is reused. The peer in the same run is tree-sitter parsing alone, so the ratio
 * shows what the walk adds.
 */
import { readFileSync } from 'node:fs';
import { Language, Parser } from 'web-tree-sitter';
import { createRequire } from 'node:module';
import { classifyShellCommand, loadShellParser } from '../src/core/index.js';
import { median, percentile, type BenchFigure } from './figure.js';

const ROUNDS = 5;
const MIN_ROUND_MS = 1500;

export default async function shellBenchmark(): Promise<BenchFigure[]> {
  await loadShellParser();
  const corpus = (JSON.parse(readFileSync(new URL('../test/fixtures/shell-corpus.json', import.meta.url), 'utf8')) as { command: string }[]).map((entry) => entry.command);

  let sink = 0;
  for (let index = 0; index < 5_000; index += 1) sink += classifyShellCommand(corpus[index % corpus.length]!).classes.length;

  const rates: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    let count = 0;
    const start = process.hrtime.bigint();
    let elapsed = 0;
    while (elapsed < MIN_ROUND_MS) {
      for (const command of corpus) sink += classifyShellCommand(command).subcommands.length;
      count += corpus.length;
      elapsed = Number(process.hrtime.bigint() - start) / 1e6;
    }
    rates.push(count / (elapsed / 1000));
  }

  const latencies: number[] = [];
  for (let round = 0; round < 20; round += 1) {
    for (const command of corpus) {
      const start = process.hrtime.bigint();
      sink += classifyShellCommand(command).classes.length;
      latencies.push(Number(process.hrtime.bigint() - start) / 1000);
    }
  }

  // Peer: parse only, with a separate parser instance.
  await Parser.init();
  const language = await Language.load(createRequire(import.meta.url).resolve('tree-sitter-bash/tree-sitter-bash.wasm'));
  const parser = new Parser();
  parser.setLanguage(language);
  const parseRates: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    let count = 0;
    const start = process.hrtime.bigint();
    let elapsed = 0;
    while (elapsed < MIN_ROUND_MS) {
      for (const command of corpus) {
        const tree = parser.parse(command);
        sink += tree ? 1 : 0;
        tree?.delete();
      }
      count += corpus.length;
      elapsed = Number(process.hrtime.bigint() - start) / 1e6;
    }
    parseRates.push(count / (elapsed / 1000));
  }
  if (sink === 0) console.error('unexpected: no work measured');

  const rate = median(rates);
  const parseRate = median(parseRates);
  return [
    { metric: 'corpus_commands', value: corpus.length, unit: 'commands' },
    { metric: 'classifications_per_second', value: Math.round(rate), unit: 'classifications/s' },
    { metric: 'p50', value: percentile(latencies, 50), unit: 'us' },
    { metric: 'p99', value: percentile(latencies, 99), unit: 'us' },
    { metric: 'parse_only_peer_per_second', value: Math.round(parseRate), unit: 'parses/s' },
    { metric: 'classify_vs_parse_only', value: rate / parseRate, unit: 'x' },
  ];
}
