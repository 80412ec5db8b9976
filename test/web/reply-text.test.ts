import { describe, expect, it } from 'vitest';
import { generatedImageOf } from '../../web/src/conversation/generated-image.js';

/** RLY-7 (OpenAI Image): which reply lines the conversation shows as a stored image, and which stay text. */
describe('generated image lines', () => {
  const hash = 'ab'.repeat(32);
  it('shows the server’s own line for this workspace as its stored image', () => {
    expect(generatedImageOf(`![Generated image](/api/workspaces/ws1/images/${hash}.png)`, 'ws1')).toBe(`${hash}.png`);
  });
  it('keeps any other image markdown as text: another host, another workspace, a path escape, another alt text', () => {
    expect(generatedImageOf(`![Generated image](https://evil.example/${hash}.png)`, 'ws1')).toBeNull();
    expect(generatedImageOf(`![Generated image](/api/workspaces/ws2/images/${hash}.png)`, 'ws1')).toBeNull();
    expect(generatedImageOf('![Generated image](/api/workspaces/ws1/images/../../operator-token)', 'ws1')).toBeNull();
    expect(generatedImageOf(`![x](/api/workspaces/ws1/images/${hash}.png)`, 'ws1')).toBeNull();
    expect(generatedImageOf(`text ![Generated image](/api/workspaces/ws1/images/${hash}.png)`, 'ws1')).toBeNull();
  });
});
