import type { ReactNode } from 'react';
import { FieldError } from '../ui/states';

/**
 * One provider's row in a settings keys table: a write-only key (the page only learns whether one is
 * stored, SEC-6) with a Remove/Keep toggle, and a base URL. Used by the model providers of the
 * built-in harness and the runners in one table; the caller owns the form's state.
 */
export function KeyAndUrlRow(props: {
  label: string;
  /** What the key is called in labels ("API key", "runner key"). */
  keyNoun: string;
  /** What the base URL is called in labels ("base URL", "runner base URL"). */
  urlNoun: string;
  stored: boolean;
  removing: boolean;
  onToggleRemove(): void;
  keyValue: string;
  onKeyChange(value: string): void;
  urlValue: string;
  onUrlChange(value: string): void;
  keyError: string | null;
  urlError: string | null;
  /** Placeholder when no key is stored. */
  emptyPlaceholder?: string;
  /** Where the key in use comes from when none is stored here ("from environment (ANTHROPIC_API_KEY)"): shown under the field. */
  keySource?: string;
  /** Placeholder of the base URL field when none is stored ("default", "from environment (…)"). */
  urlPlaceholder?: string;
  /** More about this provider's key shown under the field (a runner key stored beside it). */
  keyNote?: ReactNode;
  /**
   * What the base URL must be, when the provider's name alone would mislead (DeepSeek's runner URL is
   * its Anthropic-compatible endpoint): shown under the field and read as its description.
   */
  urlHint?: { text: string; placeholder: string };
  /** Gives the Remove/Keep button an accessible name that names the provider. */
  namedRemoveButton?: boolean;
  testId?: string;
}) {
  const { label, stored, removing } = props;
  return (
    <tr data-testid={props.testId}>
      <td data-label="Provider">{label}</td>
      <td data-label={upperFirst(props.keyNoun)}>
        <div className="inline">
          <input
            type="password"
            autoComplete="off"
            aria-label={`${label} ${props.keyNoun}`}
            placeholder={stored && !removing ? '•••••• set — type to replace' : (props.emptyPlaceholder ?? 'not set')}
            value={props.keyValue}
            onChange={(event) => props.onKeyChange(event.target.value)}
          />
          {stored ? (
            <button
              type="button"
              className="btn btn-ghost btn-small"
              aria-label={props.namedRemoveButton ? `${removing ? 'Keep' : 'Remove'} the ${label} ${props.keyNoun}` : undefined}
              onClick={props.onToggleRemove}
            >
              {removing ? 'Keep' : 'Remove'}
            </button>
          ) : null}
        </div>
        {props.keySource && !(stored && !removing) ? <div className="muted small">{props.keySource}</div> : null}
        {props.keyNote}
        <FieldError message={props.keyError} />
      </td>
      <td data-label={upperFirst(props.urlNoun)}>
        <input
          type="url"
          aria-label={`${label} ${props.urlNoun}`}
          aria-describedby={props.urlHint && props.testId ? `${props.testId}-url-hint` : undefined}
          placeholder={props.urlHint?.placeholder ?? props.urlPlaceholder ?? 'default'}
          value={props.urlValue}
          onChange={(event) => props.onUrlChange(event.target.value)}
        />
        {props.urlHint ? (
          <div className="muted small" id={props.testId ? `${props.testId}-url-hint` : undefined}>
            {props.urlHint.text}
          </div>
        ) : null}
        <FieldError message={props.urlError} />
      </td>
    </tr>
  );
}

/** A column's label on a phone, where the row is a card ("base URL" → "Base URL"). */
function upperFirst(noun: string): string {
  return noun.charAt(0).toUpperCase() + noun.slice(1);
}

/** The next set of providers whose stored key is to be removed, with `id` toggled. */
export function toggled(current: ReadonlySet<string>, id: string): Set<string> {
  const next = new Set(current);
  if (next.has(id)) next.delete(id);
  else next.add(id);
  return next;
}
