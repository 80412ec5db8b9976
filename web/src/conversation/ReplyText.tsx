/**
 * A reply's text, with the images a provider generated (OpenAI Image, RLY-7) shown inline. Only a
 * whole line of exactly `![Generated image](/api/workspaces/<this workspace>/images/<sha256>.<ext>)`
 * becomes an `<img>` — the server writes that line itself after storing the image; any other text,
 * including markdown an agent wrote, stays text (no other URL is ever loaded).
 */
import { generatedImageOf } from './generated-image.js';

export function ReplyText({ ws, text }: { ws: string; text: string }) {
  const lines = text.split('\n');
  if (!lines.some((line) => generatedImageOf(line, ws))) return <div className="message-body">{text}</div>;
  return (
    <div className="message-body">
      {lines.map((line, index) => {
        const image = generatedImageOf(line, ws);
        if (image) return <img key={index} className="generated-image" data-testid="generated-image" alt="Generated image" src={`/api/workspaces/${encodeURIComponent(ws)}/images/${image}`} />;
        return (
          <span key={index}>
            {line}
            {index < lines.length - 1 ? '\n' : ''}
          </span>
        );
      })}
    </div>
  );
}
