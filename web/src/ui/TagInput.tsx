import { useState, type KeyboardEvent } from 'react';

/** A set of tags (skills): Enter or comma adds, Backspace on an empty input removes the last. */
export function TagInput({
  id,
  value,
  onChange,
  placeholder,
  invalid,
  describedBy,
}: {
  id: string;
  value: string[];
  onChange: (next: string[]) => void;
  placeholder?: string;
  invalid?: boolean;
  describedBy?: string;
}) {
  const [draft, setDraft] = useState('');
  const add = (raw: string) => {
    const tag = raw.trim().replace(/,$/, '');
    if (!tag) return;
    // Skill names are a case-insensitive set (SKL-1).
    if (!value.some((existing) => existing.toLowerCase() === tag.toLowerCase())) onChange([...value, tag]);
    setDraft('');
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter' || event.key === ',') {
      event.preventDefault();
      add(draft);
    } else if (event.key === 'Backspace' && draft === '' && value.length > 0) {
      onChange(value.slice(0, -1));
    }
  };
  return (
    <div className={`tag-input${invalid ? ' invalid' : ''}`}>
      {value.map((tag) => (
        <span key={tag} className="tag">
          {tag}
          <button type="button" className="tag-remove" aria-label={`Remove ${tag}`} onClick={() => onChange(value.filter((entry) => entry !== tag))}>
            ×
          </button>
        </span>
      ))}
      <input
        id={id}
        value={draft}
        placeholder={value.length === 0 ? placeholder : undefined}
        onChange={(event) => setDraft(event.target.value)}
        onKeyDown={onKeyDown}
        onBlur={() => add(draft)}
        aria-invalid={invalid ? true : undefined}
        aria-describedby={describedBy}
      />
    </div>
  );
}
