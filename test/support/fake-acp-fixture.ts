import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AcpTransport, type AcpTransportOptions } from '../../src/adapters/acp/acp-transport.js';
import type { ClaudeCodeFixture } from './claude-code-fixture.js';
import { useRunnerFixture, type RunnerStartOptions } from './runner-fixture.js';

/** A real ACP agent process speaking the protocol through the ACP SDK, whose "model" is the `@` directives of the prompt. */
export const FAKE_ACP_AGENT = fileURLToPath(new URL('./fake-acp-agent.mjs', import.meta.url));

export interface FakeAcpStartOptions extends RunnerStartOptions {
  /** The session modes the agent advertises (`--modes`); absent: the defaults', else none. */
  modes?: string[];
  /** False: the agent keeps no journal (the journal reads empty). */
  journal?: boolean;
  transport?: Partial<AcpTransportOptions>;
}

export interface FakeAcpStarted {
  f: ClaudeCodeFixture;
  /** Every request, answer and mode change the agent saw, one object an entry. */
  journal: () => Array<Record<string, any>>;
}

/**
 * The ACP transport's tests' set-up: a server whose agent runs on the ACP transport with the fake ACP
 * agent as every agent's command, its journal in the data root. `defaults.agentArgs` poses it as
 * another agent (`--name grok`); `defaults.modes` are the modes it advertises unless a test says.
 */
export function useFakeAcpAgent(defaults: { agentArgs?: string[]; modes?: string[] } = {}): (options?: FakeAcpStartOptions) => Promise<FakeAcpStarted> {
  let journalPath = '';
  const start = useRunnerFixture('acp', ({ base, dataRoot }, options: FakeAcpStartOptions) => {
    journalPath = join(dataRoot, 'acp-journal.jsonl');
    writeFileSync(journalPath, '');
    const modes = options.modes ?? defaults.modes;
    const args = [FAKE_ACP_AGENT, ...(defaults.agentArgs ?? []), ...(options.journal === false ? [] : ['--journal', journalPath]), ...(modes ? ['--modes', modes.join(',')] : [])];
    return new AcpTransport({ ...base, commands: { '*': { command: process.execPath, args } }, ...options.transport });
  });
  return async (options) => {
    const f = await start(options);
    const path = journalPath;
    const journal = () =>
      readFileSync(path, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line));
    return { f, journal };
  };
}
