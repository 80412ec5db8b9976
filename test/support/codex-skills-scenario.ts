import { CodexTransport } from '../../src/adapters/codex/codex-transport.js';
import { questionCards } from './relay-fixture.js';
import { startRunnerSkillsScenario, type RunnerSkillsScenario } from './runner-skills-scenario.js';

/**
 * The SKL-5 runner-skills scenario on the real `codex app-server` without an OS sandbox: the
 * repository's skills in the checkout's `.agents/skills/` (where Codex looks on its own), the
 * installed skill's body carrying the marker QB-42.
 */
export function startCodexSkillsScenario(): Promise<RunnerSkillsScenario> {
  return startRunnerSkillsScenario({
    repoSkillsFolder: '.agents/skills',
    zebraBody: 'Zebra stripes are unique (body marker QB-42).\n',
    adapter: {
      id: 'codex',
      transport: (app, dataRoot) => new CodexTransport({ hookSessions: app.hookSessions, hiddenPaths: [dataRoot], sandbox: 'none', allowUnsandboxed: true, askUser: questionCards(app) }),
    },
  });
}
