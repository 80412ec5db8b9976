import type { ReactNode } from 'react';
import type { TurnItem } from '../api/live-run';

function pretty(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

function toolSummary(input: unknown): string {
  if (input && typeof input === 'object') {
    const record = input as Record<string, unknown>;
    for (const key of ['command', 'path', 'pattern', 'goal', 'description', 'query']) {
      const value = record[key];
      if (typeof value === 'string') return value.length > 80 ? `${value.slice(0, 80)}…` : value;
    }
  }
  return '';
}

/** The visible pieces of a turn: streamed text, folded tool calls (input/output), notes. */
export function TurnItems({ items, streaming, waiting = false, annotate }: { items: TurnItem[]; streaming: boolean; waiting?: boolean; annotate?: (item: TurnItem) => ReactNode }) {
  return (
    <div className="turn-items">
      {items.map((item, index) => {
        const last = index === items.length - 1;
        switch (item.kind) {
          case 'text':
            return (
              <div key={item.id} className="turn-text" data-testid="turn-text">
                {item.text}
                {streaming && last && !item.closed ? <span className="caret" aria-hidden="true" /> : null}
              </div>
            );
          case 'thinking':
            return (
              <details key={item.id} className="turn-thinking">
                <summary>Thinking</summary>
                <pre>{item.text}</pre>
              </details>
            );
          case 'tool': {
            const status = !item.done ? (waiting ? 'waiting for you' : 'running') : item.isError ? 'error' : item.executed === false ? 'not run' : 'done';
            return (
              <div key={item.id} className="tool-call-wrap">
              <details className={`tool-call tool-${status.replaceAll(' ', '-')}`} data-testid="tool-call">
                <summary>
                  <code className="tool-name">{item.name}</code>
                  <span className="muted small tool-summary">{toolSummary(item.input)}</span>
                  <span className={`tool-status status-${status.replaceAll(' ', '-')}`}>{status}</span>
                </summary>
                <div className="tool-io">
                  <div className="tool-io-label">Input</div>
                  <pre>{pretty(item.input) || '—'}</pre>
                  <div className="tool-io-label">Output</div>
                  <pre>{item.output ?? (item.done ? '—' : 'waiting…')}</pre>
                </div>
              </details>
              {annotate?.(item)}
              </div>
            );
          }
          case 'note':
            return (
              <div key={item.id} className={`turn-note note-${item.tone}`}>
                {item.text}
              </div>
            );
          default:
            return null;
        }
      })}
    </div>
  );
}
