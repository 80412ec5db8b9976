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

/**
 * Where a tool call stands. A turn that was stopped keeps the call it was running, marked "stopped":
 * one that never ended, and the last one, whose error is the stop cutting it short.
 */
function toolStatus(item: Extract<TurnItem, { kind: 'tool' }>, how: { waiting: boolean; stopped: boolean; paused: boolean; lastTool: boolean }): string {
  if (how.stopped && (!item.done || (how.lastTool && item.isError))) return 'stopped';
  if (!item.done) return how.waiting ? 'waiting for you' : how.paused ? 'paused' : 'running';
  return item.isError ? 'error' : item.executed === false ? 'not run' : 'done';
}

/** The visible pieces of a turn: streamed text, folded tool calls (input/output), notes. */
export function TurnItems({
  items,
  streaming,
  waiting = false,
  stopped = false,
  paused = false,
  annotate,
}: {
  items: TurnItem[];
  streaming: boolean;
  waiting?: boolean;
  /** The turn was stopped (cancelled): what it was running is shown as stopped, never as still running. */
  stopped?: boolean;
  /** The turn is paused: nothing in it reads "running". */
  paused?: boolean;
  annotate?: (item: TurnItem) => ReactNode;
}) {
  const lastToolId = items.findLast((item) => item.kind === 'tool')?.id;
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
            const status = toolStatus(item, { waiting, stopped, paused, lastTool: item.id === lastToolId });
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
                  <pre>{item.output ?? (item.done ? '—' : stopped ? 'stopped before it answered' : 'waiting…')}</pre>
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
