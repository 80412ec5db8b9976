/**
 * Policy decision latency against a compiled store of 10,000 rules (POL-3 must be cheap enough to sit
 * on every tool call). Reports decisions per second and p50/p99 latency in µs, and, as a peer in the
 * same run, the p50 of a naive engine that scans the rule list per decision.
 */
import { EFFECT_CLASSES, classifyShellCommand, compilePolicy, decideAction, loadShellParser, shellAction, type Decision, type EffectClass, type PolicyAction, type PolicyContext, type PolicyRule } from '../src/core/index.js';
import { median, percentile, type BenchFigure } from './figure.js';

const RULES = 10_000;
const SPACES = 500;
const AGENTS = 200;
const DECISIONS = 200_000;

/** Deterministic pseudo-random numbers so runs are comparable. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

const COMMAND_PREFIXES = [
  'git push', 'git push origin', 'git push origin main', 'git commit', 'git', 'rm', 'rm -rf', 'npm install', 'npm run', 'npm', 'curl', 'make',
  'docker run', 'gh pr create', 'gh pr merge', 'python', 'node', 'cargo build', 'pip install', 'kubectl',
];

function buildRules(next: () => number): PolicyRule[] {
  const decisions: Decision[] = ['allow', 'ask', 'deny'];
  const rules: PolicyRule[] = [];
  for (let index = 0; index < RULES; index += 1) {
    const roll = next();
    const scope = roll < 0.5 ? 'space' : roll < 0.8 ? 'agent' : 'workspace';
    const scopeId = scope === 'space' ? `sp_${Math.floor(next() * SPACES)}` : scope === 'agent' ? `ag_${Math.floor(next() * AGENTS)}` : 'ws_1';
    const kind = next();
    const decision = decisions[Math.floor(next() * 3)]!;
    if (kind < 0.5) {
      rules.push({ id: `r${index}`, scope, scopeId, match: { kind: 'class', effectClass: EFFECT_CLASSES[Math.floor(next() * EFFECT_CLASSES.length)]! }, decision });
    } else if (kind < 0.95) {
      // Many distinct prefixes: a shared head plus a unique tail, so the trie is wide and deep.
      const head = COMMAND_PREFIXES[Math.floor(next() * COMMAND_PREFIXES.length)]!;
      const prefix = next() < 0.5 ? head : `${head} arg${Math.floor(next() * 1000)}`;
      rules.push({ id: `r${index}`, scope, scopeId, match: { kind: 'command', prefix }, decision });
    } else {
      rules.push({ id: `r${index}`, scope, scopeId, match: { kind: 'fingerprint', fingerprint: `fp_${Math.floor(next() * 5000)}` }, decision });
    }
  }
  return rules;
}

const COMMANDS = [
  'git push origin main', 'rm -rf build && npm install', 'git commit -am x && git push', 'curl -s https://example.com | jq .', 'make -j4 test',
  'docker run --rm alpine echo hi', 'gh pr create --fill', 'python script.py', 'ls -la', 'cargo build --release', 'npm run build > build.log 2>&1',
  'timeout 5 git push origin arg17', 'pip install requests', 'cat .env', 'kubectl get pods',
];

/** A naive peer: scan every rule for every facet (what the compiled index avoids). */
function linearDecide(rules: readonly PolicyRule[], action: PolicyAction, context: PolicyContext): Decision {
  const order: [string, string | undefined][] = [['space', context.spaceId], ['agent', context.agentId], ['workspace', context.workspaceId]];
  let worst: Decision = 'allow';
  const severity = { allow: 0, ask: 1, deny: 2 } as const;
  const facets: { effectClass: EffectClass; argv: readonly string[] | null }[] = [];
  for (const subcommand of action.commandSubcommands ?? []) for (const effectClass of subcommand.classes) facets.push({ effectClass, argv: subcommand.argv });
  for (const facet of facets) {
    let decided: Decision | null = null;
    for (const [scope, id] of order) {
      let bestLength = 0;
      for (const rule of rules) {
        if (rule.scope !== scope || rule.scopeId !== id) continue;
        if (rule.match.kind === 'class' && rule.match.effectClass === facet.effectClass && bestLength === 0) decided = decided === null ? rule.decision : severity[rule.decision] > severity[decided] ? rule.decision : decided;
        if (rule.match.kind === 'command' && facet.argv) {
          const tokens = rule.match.prefix.split(' ');
          if (tokens.length >= bestLength && tokens.every((token, index) => facet.argv![index] === token)) {
            bestLength = tokens.length;
            decided = rule.decision;
          }
        }
      }
      if (decided !== null) break;
    }
    const decision = decided ?? 'allow';
    if (severity[decision] > severity[worst]) worst = decision;
  }
  return worst;
}

export default async function policyBenchmark(): Promise<BenchFigure[]> {
  await loadShellParser();
  const next = random(42);
  const rules = buildRules(next);
  const compileStart = process.hrtime.bigint();
  const policy = compilePolicy(rules);
  const compileMs = Number(process.hrtime.bigint() - compileStart) / 1e6;

  // Actions are classified once up front: this measures the decision, not the shell parser.
  const actions = COMMANDS.map((command) => {
    const classification = classifyShellCommand(command);
    return shellAction(classification, 'bash', 'execute', `fp_${Math.floor(next() * 5000)}`);
  });
  const contexts: PolicyContext[] = Array.from({ length: 1024 }, () => ({
    mode: next() < 0.8 ? 'chat' : 'plan',
    autonomy: (['proposeOnly', 'askFirst', 'actWithApproval', 'actFreely'] as const)[Math.floor(next() * 4)]!,
    workspaceId: 'ws_1',
    spaceId: `sp_${Math.floor(next() * SPACES)}`,
    agentId: `ag_${Math.floor(next() * AGENTS)}`,
  }));

  let sink = 0;
  for (let index = 0; index < 20_000; index += 1) sink += decideAction(policy, actions[index % actions.length]!, contexts[index % contexts.length]!).askedClasses.length;

  const latencies = new Float64Array(DECISIONS);
  for (let index = 0; index < DECISIONS; index += 1) {
    const action = actions[index % actions.length]!;
    const context = contexts[(index * 7) % contexts.length]!;
    const start = process.hrtime.bigint();
    const decision = decideAction(policy, action, context);
    latencies[index] = Number(process.hrtime.bigint() - start) / 1000;
    sink += decision.decision.length;
  }
  const sorted = [...latencies];

  // Throughput without per-call timers, best of five batches.
  const rates: number[] = [];
  for (let round = 0; round < 5; round += 1) {
    const start = process.hrtime.bigint();
    for (let index = 0; index < DECISIONS; index += 1) sink += decideAction(policy, actions[index % actions.length]!, contexts[(index * 7) % contexts.length]!).classes.length;
    rates.push(DECISIONS / (Number(process.hrtime.bigint() - start) / 1e9));
  }

  const peer: number[] = [];
  for (let index = 0; index < 2_000; index += 1) {
    const start = process.hrtime.bigint();
    sink += linearDecide(rules, actions[index % actions.length]!, contexts[(index * 7) % contexts.length]!).length;
    peer.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  if (sink === 0) console.error('unexpected: no work measured');

  const p50 = percentile(sorted, 50);
  const peerP50 = median(peer);
  return [
    { metric: 'rules', value: RULES, unit: 'rules' },
    { metric: 'compile', value: compileMs, unit: 'ms' },
    { metric: 'decisions_per_second', value: Math.round(median(rates)), unit: 'decisions/s' },
    { metric: 'p50', value: p50, unit: 'us' },
    { metric: 'p99', value: percentile(sorted, 99), unit: 'us' },
    { metric: 'p999', value: percentile(sorted, 99.9), unit: 'us' },
    { metric: 'linear_scan_peer_p50', value: peerP50, unit: 'us' },
    { metric: 'speedup_vs_linear_scan', value: peerP50 / p50, unit: 'x' },
  ];
}
