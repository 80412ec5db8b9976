import { withoutSpecIds } from './error-voice';

/**
 * An identifier: `camelCase`, `snake_case`, `PascalCase` run together, or a path-like `a/b_c` — a name
 * a program uses. Shown as code, so a person reads it as a quoted name, not as a word that leaked.
 */
const IDENTIFIER = /((?:[\w.-]+\/)*(?:[a-z]+[A-Z]\w*|[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[A-Z][a-z]+(?:[A-Z][a-z]+)+)(?:\/[\w.-]+)*)/;

/**
 * A technical statement the server makes (the honesty matrix's details): text between backticks and
 * the identifiers it names are set as code; the SPEC ids it cites for developers are left out.
 */
export function TechnicalText({ text }: { text: string }) {
  const parts = withoutSpecIds(text).split('`');
  return (
    <>
      {parts.map((part, index) =>
        index % 2 === 1 ? (
          <code key={index}>{part}</code>
        ) : (
          part.split(IDENTIFIER).map((piece, pieceIndex) => (pieceIndex % 2 === 1 ? <code key={`${index}-${pieceIndex}`}>{piece}</code> : piece))
        ),
      )}
    </>
  );
}
