/**
 * Skills (SKL-3, SKL-2): the fail-closed scan of a 1,000-file skill folder (every rule, the
 * capability manifest and the npx-skills folder hash, as install runs them), and prompt assembly
 * for an agent with 200 linked skills (reading and parsing 200 SKILL.md frontmatters from disk, then
 * assembling the system prompt); and re-judging an unchanged repo skill of that size at the start of
 * a run, before (scan + hash every run) and after (fingerprint + cached verdict) the scan cache.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assembleSystemPrompt } from '../src/harness/assemble-system-prompt.js';
import { scanSkillFolder } from '../src/core/skills/scan/scan-skill.js';
import type { SkillFolderEntry } from '../src/core/skills/scan/scan-types.js';
import { scanFingerprint } from '../src/core/skills/scan/scan-fingerprint.js';
import type { ScanReport } from '../src/core/skills/scan/scan-types.js';
import { computeSkillFolderHash } from '../src/core/skills/skill-folder-hash.js';
import { parseSkillFile } from '../src/core/skills/skill-frontmatter.js';
import { median, type BenchFigure } from './figure.js';

const FILES = 1_000;
const SKILLS = 200;
const ROUNDS = 7;

function folder(): SkillFolderEntry[] {
  const encoder = new TextEncoder();
  const entries: SkillFolderEntry[] = [{ path: 'SKILL.md', kind: 'file', mode: 0o644, content: encoder.encode('---\nname: big-skill\ndescription: A large skill.\n---\n\nUse the scripts.\n') }];
  for (let index = 1; index < FILES; index += 1) {
    const kind = index % 3;
    const path = kind === 0 ? `references/doc-${index}.md` : kind === 1 ? `scripts/tool_${index}.py` : `scripts/run-${index}.sh`;
    const line = kind === 0 ? `Section ${index}: how to use the tool with care and check the output.\n` : kind === 1 ? `def step_${index}(x):\n    return x * ${index}\n` : `echo "step ${index}" && ls ./build\n`;
    entries.push({ path, kind: 'file', mode: 0o644, content: encoder.encode(line.repeat(40)) });
  }
  return entries;
}

const bench = async (): Promise<BenchFigure[]> => {
  const entries = folder();
  const bytes = entries.reduce((sum, entry) => sum + entry.content!.byteLength, 0);
  const scanTimes: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const started = performance.now();
    const report = scanSkillFolder(entries, { folderName: 'big-skill' });
    computeSkillFolderHash(entries.map((entry) => ({ path: entry.path, content: entry.content! })));
    scanTimes.push(performance.now() - started);
    if (report.fileCount !== FILES) throw new Error('scan did not see every file');
  }

  // A repo skill re-read from the checkout at each run: the scan as it ran every time before, and
  // the fingerprint + cache lookup RepoSkills does now for content it already judged.
  const judged = new Map<string, ScanReport>([[scanFingerprint(entries), scanSkillFolder(entries, { folderName: 'big-skill' })]]);
  const cachedTimes: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const started = performance.now();
    if (!judged.get(scanFingerprint(entries))) throw new Error('fingerprint changed for the same folder');
    cachedTimes.push(performance.now() - started);
  }

  const dir = await mkdtemp(join(tmpdir(), 'cc-bench-skills-'));
  const names: string[] = [];
  for (let index = 0; index < SKILLS; index += 1) {
    const name = `skill-${index}`;
    names.push(name);
    await mkdir(join(dir, name));
    await writeFile(join(dir, name, 'SKILL.md'), `---\nname: ${name}\ndescription: Does task number ${index} the careful way, with checks.\n---\n\n${'Body line.\n'.repeat(200)}`);
  }
  const promptTimes: number[] = [];
  let promptLength = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    const started = performance.now();
    const skills = await Promise.all(
      names.map(async (name) => ({ name, description: parseSkillFile(await readFile(join(dir, name, 'SKILL.md'), 'utf8'), name).frontmatter.description })),
    );
    promptLength = assembleSystemPrompt({ agentName: 'engineer', title: 'Engineer', persona: 'Builds things.', systemPrompt: null, skills, modeBlock: '## Mode: Agent' }).length;
    promptTimes.push(performance.now() - started);
  }
  await rm(dir, { recursive: true, force: true });
  const scanMs = median(scanTimes);
  return [
    { metric: 'scan_1000_files_ms_p50', value: scanMs, unit: 'ms' },
    { metric: 'scan_files_per_s', value: Math.round(FILES / (scanMs / 1000)), unit: 'files/s' },
    { metric: 'scan_mb_per_s', value: bytes / 1_048_576 / (scanMs / 1000), unit: 'MB/s' },
    { metric: 'repo_skill_rejudge_1000_files_uncached_ms_p50', value: scanMs, unit: 'ms' },
    { metric: 'repo_skill_rejudge_1000_files_cached_ms_p50', value: median(cachedTimes), unit: 'ms' },
    { metric: 'prompt_200_skills_ms_p50', value: median(promptTimes), unit: 'ms' },
    { metric: 'prompt_200_skills_chars', value: promptLength, unit: 'chars' },
  ];
};

export default bench;
