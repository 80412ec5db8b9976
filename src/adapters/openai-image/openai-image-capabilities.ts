import type { TransportCapabilities } from '../transport-capabilities.js';

export const OPENAI_IMAGE_ADAPTER_ID = 'openai-image';

/**
 * OpenAI Image (RLY-7): one images-API call per turn from the server's process. It has no tools, no
 * shell, no files and no modes: the relay mode changes nothing (RLY-3: `relayModes: 'none'` lets the
 * web hide the mode picker). Nothing runs in a sandbox because nothing runs.
 */
export const OPENAI_IMAGE_CAPABILITIES: TransportCapabilities = {
  adapterId: OPENAI_IMAGE_ADAPTER_ID,
  label: 'OpenAI Image',
  steer: false,
  pauseResume: false,
  cancel: true,
  subagents: 'inRunner',
  nativeTools: false,
  toolExecution: 'host',
  // No tool is ever offered to the image model, so there is nothing to gate: the surface is empty.
  gates: { toolSurface: true, shellCommands: false, fileWrites: false, reads: false, productTools: false, pushes: false },
  completionContract: [],
  structuralModes: [],
  sandbox: false,
  skills: 'unfed',
  relayModes: 'none',
  // The images API takes a prompt and a model; it has no system prompt, skills or effort.
  honours: {
    agentFields: { modelId: 'the images API model' },
    spaceSettings: { autonomy: 'no tool runs, so nothing can act without the approval the dial asks for' },
  },
};
