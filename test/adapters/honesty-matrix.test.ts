import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BUILTIN_CAPABILITIES } from '../../src/adapters/builtin/builtin-capabilities.js';
import { CLAUDE_AGENT_SDK_CAPABILITIES, DEEPSEEK_CAPABILITIES } from '../../src/adapters/claude-agent-sdk/claude-agent-sdk-capabilities.js';
import { GROK_CAPABILITIES } from '../../src/adapters/grok/grok-capabilities.js';
import { OPENAI_IMAGE_CAPABILITIES } from '../../src/adapters/openai-image/openai-image-capabilities.js';
import { ACP_CAPABILITIES } from '../../src/adapters/acp/acp-capabilities.js';
import { CODEX_CAPABILITIES } from '../../src/adapters/codex/codex-capabilities.js';
import { COPILOT_CAPABILITIES, COPILOT_EXTENSION_CAPABILITIES } from '../../src/adapters/copilot/copilot-capabilities.js';
import { CURSOR_CAPABILITIES } from '../../src/adapters/cursor/cursor-capabilities.js';
import { CLAUDE_CODE_CAPABILITIES } from '../../src/adapters/claude-code/claude-code-capabilities.js';
import { HONESTY_CAPABILITIES, honestyMatrix, renderHonestyMatrixMarkdown, undeclaredClaims, type HonestyRow } from '../../src/adapters/honesty-matrix.js';
import { getCapabilityProfile } from '../../src/core/capability-profiles.js';
import { MODES } from '../../src/core/modes.js';
import { ControlCenter } from '../../src/services/control-center.js';
import { startClaudeCodeFixture, type ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { citationProblems } from '../support/matrix-citation.js';

const root = join(import.meta.dirname, '..', '..');

let fixture: ClaudeCodeFixture | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

describe('honesty matrix (ADP-1)', () => {
  it('every cell names a test that exists and runs wherever the row holds; every ✅ names a run of that transport in that mode; a cell shown against a fake says so and is no ✅ (TRUTH-2)', () => {
    const problems = honestyMatrix().adapters.flatMap((adapter) => adapter.rows.flatMap((row) => citationProblems(adapter.id, row)));
    expect(problems).toEqual([]);
  });

  it('covers every capability for both adapters, with a level and a detail', () => {
    for (const adapter of honestyMatrix().adapters) {
      const covered = new Set(adapter.rows.map((row) => row.key));
      for (const capability of Object.keys(HONESTY_CAPABILITIES)) expect(covered.has(capability as keyof typeof HONESTY_CAPABILITIES)).toBe(true);
      for (const row of adapter.rows) {
        expect(['enforced', 'partial', 'none', 'notApplicable']).toContain(row.level);
        expect(row.detail.length).toBeGreaterThan(20);
      }
    }
  });

  it('does not claim that Claude Code intercepts its native reads', () => {
    const claude = honestyMatrix().adapters.find((adapter) => adapter.id === 'claude-code')!;
    expect(claude.rows.find((row) => row.key === 'reads')?.level).toBe('none');
    expect(claude.rows.find((row) => row.key === 'nativeTools')?.level).toBe('partial');
    expect(claude.rows.filter((row) => row.key === 'sandbox').map((row) => [row.host, row.level])).toEqual([
      ['bubblewrap', 'enforced'],
      ['seatbelt', 'partial'],
      ['none', 'none'],
    ]);
  });

  it('has a skills row per runner; the SDK engine’s, Codex’s, Copilot’s and ACP agents’ discovery are fed the scanned set, the runners fed nothing say so (SKL-5)', () => {
    const level = (id: string) => honestyMatrix().adapters.find((adapter) => adapter.id === id)!.rows.filter((row) => row.key === 'skills').map((row) => row.level);
    expect(level('builtin')).toEqual(['enforced']);
    expect(level('claude-code')).toEqual(['partial']);
    expect(level('claude-agent-sdk')).toEqual(['partial']);
    expect(level('deepseek')).toEqual(['partial']);
    expect(level('codex')).toEqual(['partial']);
    expect(level('acp')).toEqual(['partial']);
    expect(ACP_CAPABILITIES.skills).toBe('fedUnbounded');
    expect(level('copilot')).toEqual(['partial']);
    // Runners without skill discovery of their own: the row's text comes from the declaration.
    expect(GROK_CAPABILITIES.skills).toBe('hostSkillTool');
    expect(CURSOR_CAPABILITIES.skills).toBe('hostSkillTool');
    expect(level('grok')).toEqual(['enforced']);
    expect(level('cursor')).toEqual(['partial']);
    const detail = (id: string) => honestyMatrix().adapters.find((adapter) => adapter.id === id)!.rows.find((row) => row.key === 'skills')!.detail;
    for (const [id, label] of [['grok', GROK_CAPABILITIES.label], ['cursor', CURSOR_CAPABILITIES.label]] as const) {
      expect(detail(id)).toMatch(new RegExp(`^${label.replace(/[()]/g, '\\$&')}: no skill discovery of its own is in play`));
      expect(detail(id)).toContain('the `skill` tool over the Control Center’s MCP server');
    }
  });

  it('GET /api/honesty-matrix serves the matrix and which sandbox row applies on this host', async () => {
    fixture = await startClaudeCodeFixture({ transport: { sandbox: 'none', allowUnsandboxed: true } });
    const response = await fixture.api('GET', '/api/honesty-matrix');
    expect(response.status).toBe(200);
    expect(response.body.adapters.map((adapter: any) => adapter.id)).toEqual(['builtin', 'claude-code', 'claude-agent-sdk', 'deepseek', 'codex', 'acp', 'copilot', 'copilot-extension', 'grok', 'cursor', 'openai-image']);
    expect(response.body.adapters[1].rows[0]).toEqual(expect.objectContaining({ key: 'toolSurface', capability: 'filters the tool surface', mode: 'chat', level: 'partial', testedBy: expect.stringContaining('test/adapters/') }));
    // A cell that does not apply is served as such (TRUTH-2), not as enforced or none.
    expect(response.body.adapters.find((adapter: any) => adapter.id === 'openai-image').rows.find((row: any) => row.key === 'toolSurface').level).toBe('notApplicable');
    expect(['bubblewrap', 'seatbelt', 'none']).toContain(response.body.host.sandbox);
    // What each transport declares, the same records the run routes and the matrix check read.
    expect(response.body.transports.map((declared: any) => [declared.adapterId, declared.steer, declared.pauseResume, declared.completionContract])).toEqual([
      ['builtin', true, true, ['plan', 'orchestrate']],
      ['claude-code', false, false, ['plan', 'orchestrate']],
      ['claude-agent-sdk', false, false, ['plan', 'orchestrate']],
      ['deepseek', false, false, ['plan', 'orchestrate']],
      ['codex', false, false, ['plan', 'orchestrate']],
      ['acp', false, false, ['plan', 'orchestrate']],
      ['copilot', false, false, ['plan', 'orchestrate']],
      ['copilot-extension', false, false, ['plan', 'orchestrate']],
      ['grok', true, true, ['plan', 'orchestrate']],
      ['cursor', false, false, ['plan', 'orchestrate']],
      ['openai-image', false, false, []],
    ]);
    const unauthenticated = await fetch(`${fixture.url}/api/honesty-matrix`);
    expect(unauthenticated.status).toBe(401);
  });
});

describe('honesty matrix against the transports’ declarations (ADP-1)', () => {
  it('every enforced row maps to a capability its transport declares', () => {
    expect(undeclaredClaims([BUILTIN_CAPABILITIES, CLAUDE_CODE_CAPABILITIES, CLAUDE_AGENT_SDK_CAPABILITIES, DEEPSEEK_CAPABILITIES, CODEX_CAPABILITIES, ACP_CAPABILITIES, COPILOT_CAPABILITIES, COPILOT_EXTENSION_CAPABILITIES, GROK_CAPABILITIES, CURSOR_CAPABILITIES, OPENAI_IMAGE_CAPABILITIES])).toEqual([]);
  });

  it('catches a row that claims more than the declaration (an orchestrate contract the transport does not declare, a hooked read)', () => {
    const claude = honestyMatrix().adapters.find((adapter) => adapter.id === 'claude-code')!;
    const overclaiming = {
      adapters: [
        {
          ...claude,
          rows: [
            { ...claude.rows.find((row) => row.key === 'completionContract' && row.mode === 'orchestrate')!, level: 'enforced' as const },
            { ...claude.rows.find((row) => row.key === 'reads')!, level: 'enforced' as const },
            { ...claude.rows.find((row) => row.key === 'nativeTools')!, level: 'enforced' as const },
          ],
        },
        { id: 'mystery', label: 'Mystery', rows: [] },
      ],
    };
    // ORC-1 made the orchestrate contract real, so the declaration before it (plan only) is the over-claimed one.
    const problems = undeclaredClaims([BUILTIN_CAPABILITIES, { ...CLAUDE_CODE_CAPABILITIES, completionContract: ['plan'] }, CLAUDE_AGENT_SDK_CAPABILITIES, DEEPSEEK_CAPABILITIES], overclaiming);
    expect(problems).toHaveLength(4);
    expect(problems.join('\n')).toMatch(/claude-code: 'observes the completion contract' in orchestrate is marked enforced/);
    expect(problems.join('\n')).toMatch(/mystery: no transport declares/);
  });

  it('a declared completion contract names an output verb some tool implements', async () => {
    const dataRoot = await mkdtemp(join(tmpdir(), 'cc-matrix-'));
    const app = await ControlCenter.open({ dataRoot, env: {} });
    try {
      // The server's registry is where the declarations come from: one per registered transport.
      expect(app.executor.transportCapabilities().map((declared) => declared.adapterId)).toEqual(['builtin', 'claude-code', 'claude-agent-sdk', 'deepseek', 'codex', 'acp', 'copilot', 'copilot-extension', 'grok', 'cursor', 'openai-image']);
      for (const declared of app.executor.transportCapabilities()) {
        // A provider without modes or tools (OpenAI Image, RLY-3) has no contract to observe in any mode.
        // Nor does one whose runner gets no product tools (the Grok CLI): the verb is not on its surface.
        if (declared.relayModes === 'none' || !declared.gates.productTools) {
          expect(declared.completionContract).toEqual([]);
          continue;
        }
        for (const mode of MODES) {
          const verb = getCapabilityProfile(mode).outputVerb;
          const implemented = verb !== null && app.executor.toolNamesFor(mode).includes(verb);
          expect({ transport: declared.adapterId, mode, verb, declared: declared.completionContract.includes(mode) }).toEqual({
            transport: declared.adapterId,
            mode,
            verb,
            declared: implemented,
          });
        }
      }
      const claude = honestyMatrix().adapters.find((adapter) => adapter.id === 'claude-code')!;
      // ORC-1: propose_orchestration exists now, so orchestrate's contract is observed (it was 'none' while the verb was missing).
      expect(claude.rows.find((row) => row.key === 'completionContract' && row.mode === 'orchestrate')?.level).toBe('partial');
    } finally {
      await app.close();
      await rm(dataRoot, { recursive: true, force: true });
    }
  });
});

const SAMPLES = 'test/support/matrix-citation-samples.ts';

/** A row of `adapterId` as the matrix has it, changed by `change` (a mistake the checker must catch). */
function alteredRow(adapterId: string, pick: (row: HonestyRow) => boolean, change: Partial<HonestyRow>): HonestyRow {
  const found = honestyMatrix().adapters.find((adapter) => adapter.id === adapterId)!.rows.find(pick)!;
  return { ...found, ...change };
}

describe('the honesty-matrix checker refuses proofs that prove nothing for the row (TRUTH-2)', () => {
  const planWrite = (row: HonestyRow) => row.key === 'fileWrites' && row.mode === 'plan';

  it('a ✅ that cites another transport’s test: DeepSeek citing the Claude Agent SDK’s', () => {
    const sdkProof = alteredRow('claude-agent-sdk', planWrite, {}).testedBy;
    expect(citationProblems('deepseek', alteredRow('deepseek', planWrite, { testedBy: sdkProof }))).toEqual([
      "deepseek: 'intercepts native file writes' in plan is enforced but cites a test that is not deepseek's (neither its file nor a title names that transport)",
    ]);
  });

  it('a ✅ in one mode that cites a run in another: Claude Code’s review write refusal citing its plan run', () => {
    const planProof = alteredRow('claude-code', planWrite, {}).testedBy;
    const review = alteredRow('claude-code', (row) => row.key === 'fileWrites' && row.mode === 'review', { testedBy: planProof });
    expect(citationProblems('claude-code', review)).toEqual(["claude-code: 'intercepts native file writes' in review is enforced in review but cites a test whose titles name no run in that mode"]);
  });

  it('a cited test that is skipped, todo, under skipIf, or can return before asserting; a bubblewrap row may cite a test that skips only without bubblewrap', () => {
    const cite = (title: string, change: Partial<HonestyRow> = {}) =>
      citationProblems('claude-code', alteredRow('claude-code', planWrite, { testedBy: `${SAMPLES} > samples: Claude Code runs that may not run > ${title}`, ...change }));
    expect(cite('plan: a skipped test')).toEqual([expect.stringMatching(/test 'plan: a skipped test' is \.skip: it never runs/)]);
    expect(cite('plan: a test still to write')).toEqual([expect.stringMatching(/is \.todo: it never runs/)]);
    expect(cite('plan: a test skipped on some hosts')).toEqual([expect.stringMatching(/is \.skipIf\(onSomeHosts\): it may not run where the row claims enforced/)]);
    expect(cite('plan: a test that may end before it asserts')).toEqual([expect.stringMatching(/can end without asserting: if \(onSomeHosts\) return;/)]);
    // Positive control: the same row with a test that always runs passes (the file imports no stand-in of Claude Code).
    expect(citationProblems('claude-code', alteredRow('claude-code', planWrite, { testedBy: 'test/adapters/claude-code-gating.test.ts > Claude Code transport in plan mode (ADP-3) > a scripted Write is refused, leaves no file, and Write is not offered to the model' }))).toEqual([]);
    const bubblewrapOnly = `${SAMPLES} > samples: Claude Code in bubblewrap > a test that runs wherever bubblewrap works`;
    const sandboxRow = (host: 'bubblewrap' | 'none') => alteredRow('claude-code', (row) => row.key === 'sandbox' && row.host === host, { testedBy: bubblewrapOnly, level: 'enforced' });
    expect(citationProblems('claude-code', sandboxRow('bubblewrap')).filter((problem) => /skipIf/.test(problem))).toEqual([]);
    expect(citationProblems('claude-code', sandboxRow('none'))).toContainEqual(expect.stringMatching(/is \.skipIf\(!probe\.available\): it may not run where the row claims enforced/));
  });

  it('a ✅ proven against a stand-in for the runtime, and a row against a fake that does not say so', () => {
    const cursorContract = (change: Partial<HonestyRow>) => alteredRow('cursor', (row) => row.key === 'completionContract' && row.mode === 'plan', change);
    expect(citationProblems('cursor', cursorContract({ level: 'enforced' }))).toEqual([expect.stringMatching(/is enforced but its test runs against a stand-in \(test\/support\/fake-cursor-sdk\.ts\), not the runtime/)]);
    expect(citationProblems('cursor', cursorContract({ detail: 'Observed through the host record.' }))).toEqual([expect.stringMatching(/the detail does not say "tested against a fake"/)]);
  });
});

describe('cells that do not apply (TRUTH-2)', () => {
  it('are n/a, and say why; no other cell says "not applicable"', () => {
    for (const adapter of honestyMatrix().adapters) {
      for (const row of adapter.rows) expect({ adapter: adapter.id, key: row.key, notApplicable: /^Not applicable: ./.test(row.detail) }).toEqual({ adapter: adapter.id, key: row.key, notApplicable: row.level === 'notApplicable' });
    }
    const image = honestyMatrix().adapters.find((adapter) => adapter.id === 'openai-image')!;
    expect(image.rows.filter((row) => row.level !== 'notApplicable')).toEqual([]);
    expect(renderHonestyMatrixMarkdown()).toMatch(/\| filters the tool surface \| all modes \| ➖ n\/a \| Not applicable: /);
  });
});

describe('docs/honesty-matrix.md', () => {
  it('embeds the tables generated from the data, unchanged', async () => {
    const doc = readFileSync(join(root, 'docs', 'honesty-matrix.md'), 'utf8');
    const embedded = doc.split('<!-- honesty-matrix:begin')[1]!.split('\n').slice(1).join('\n').split('<!-- honesty-matrix:end -->')[0]!.trim();
    expect(embedded).toBe(renderHonestyMatrixMarkdown().trim());
  });
});
