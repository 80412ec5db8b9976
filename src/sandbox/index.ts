export type { SandboxBackend, SandboxLaunch, SandboxSpec } from './sandbox-spec.js';
export { BubblewrapSandbox, bubblewrapArguments, describeBubblewrap, probeBubblewrap, relayInitScript, SANDBOX_RELAY_DIR, type BubblewrapProbe } from './bubblewrap-sandbox.js';
export { CommandSandbox, type CommandSandboxOptions, type RunSandbox, type RunSandboxInput } from './command-sandbox.js';
export { SeatbeltSandbox, seatbeltProfile } from './seatbelt-profile.js';
export { startLoopbackRelays, type LoopbackRelays } from './loopback-relay.js';
export { ANTHROPIC_MODEL_VARIABLES, CLAUDE_OFFLINE_VARIABLES, runnerEnvironment, type RunnerEnvironmentInput } from './runner-environment.js';
export { selectSandbox, type SandboxSelection } from './select-sandbox.js';
