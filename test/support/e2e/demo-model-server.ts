/**
 * A scripted model for demonstrating the web app without a real model key:
 *
 *   npx tsx test/support/e2e/demo-model-server.ts
 *
 * It prints a URL; in the app, Settings → Workspace → General, set the Anthropic API key to any
 * text and the Anthropic base URL to that URL. Then, in a conversation:
 * - any message gets a slowly streamed answer;
 * - a message with "delete" makes the agent run `rm -f demo.txt` (an approval in the Inbox);
 * - a message with "ask me" makes the agent ask two questions (a question card);
 * - in Plan mode (or with `/plan <request>`) the agent submits a four-step plan (Plan Studio).
 */
import { reply, startScriptedModelServer, type ScriptedRequest, type ScriptedReply } from '../scripted-model-server.js';

function demoReply(request: ScriptedRequest): ScriptedReply {
  const text = request.lastUserText ?? '';
  const last = request.lastToolResult;
  if (last) {
    if (request.toolNames.includes('submit_plan') && !last.isError) return reply().text('I submitted the plan. Open it in Plan Studio to approve or reject it.').chunkSize(6).slow(25);
    return reply()
      .text(last.isError ? `That did not work: ${last.content.slice(0, 300)}` : `Done. The tool said: ${last.content.slice(0, 300)}`)
      .chunkSize(6)
      .slow(25);
  }
  if (request.toolNames.includes('submit_plan')) {
    const goal = text.trim().slice(0, 120) || 'The requested change';
    return reply()
      .text('I read the relevant code; here is the plan.')
      .tool('submit_plan', {
        goal,
        nodes: [
          { key: 'research', title: 'Read the current code', description: `Find where "${goal}" touches the code.`, dependsOn: [] },
          { key: 'change', title: 'Make the change', description: 'Edit the files found in the first step.', dependsOn: ['research'] },
          { key: 'docs', title: 'Update the docs', description: 'Describe the change for users.', dependsOn: ['research'] },
          { key: 'verify', title: 'Verify', description: 'Run the tests and check the result by hand.', dependsOn: ['change', 'docs'] },
        ],
      });
  }
  if (/\bdelete\b/i.test(text) && request.toolNames.includes('bash')) return reply().text('Deleting it now.').tool('bash', { command: 'rm -f demo.txt' });
  if (/\bask me\b/i.test(text) && request.toolNames.includes('ask_user')) {
    return reply().tool('ask_user', {
      questions: [
        { question: 'Which colour should the button be?', options: ['red', 'green', 'blue'] },
        { question: 'What should its label say?' },
      ],
    });
  }
  return reply()
    .text(`You said: "${text.slice(0, 200)}". This is the scripted demo model; try "delete demo.txt", "ask me something", or /plan <request>.`)
    .chunkSize(5)
    .slow(30);
}

const server = await startScriptedModelServer();
// Every request takes the next queued reply; a long queue of the same dynamic reply answers them all.
server.script(...Array.from({ length: 10_000 }, () => reply(demoReply)));
console.log(`Scripted demo model listening on ${server.url}`);
console.log(`In the app: Settings → Workspace → General → Anthropic: API key "demo", base URL ${server.url}`);
const stop = async () => {
  await server.close();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
