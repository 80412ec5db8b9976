import { withoutSpecIds } from './error-voice';
import { statedValuesAsWords } from './words';

/**
 * An identifier: `camelCase`, `snake_case`, `PascalCase` run together, or a path-like `a/b_c` — a name
 * a program uses. Shown as code, so a person reads it as a quoted name, not as a word that leaked.
 */
const IDENTIFIER = /((?<![A-Za-z0-9_])(?:[\w.-]+\/)*(?:[a-z]+[A-Z]\w*|[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[A-Z][a-z]+(?:[A-Z][a-z]+)+)(?:\/[\w.-]+)*)/;

/** Product and file-format names written with inner capitals on purpose: words, not identifiers. */
const BRAND_NAMES = new Set(['GitHub', 'GitLab', 'OpenAI', 'DeepSeek', 'macOS', 'WebP', 'JavaScript', 'TypeScript', 'PostgreSQL']);

/**
 * A technical statement the server makes (the honesty matrix's details): text between backticks and
 * the identifiers it names are set as code, values of our own enums are said in words (words.ts), and
 * the SPEC ids it cites for developers are left out.
 */
export function TechnicalText({ text }: { text: string }) {
  const parts = withoutSpecIds(text).split('`');
  return (
    <>
      {parts.map((part, index) =>
        index % 2 === 1 ? (
          <code key={index}>{part}</code>
        ) : (
          // Values of our own enums are said in words; only what stays an identifier is set as code.
          statedValuesAsWords(part)
            .split(IDENTIFIER)
            .map((piece, pieceIndex) => (pieceIndex % 2 === 1 && !BRAND_NAMES.has(piece) ? <code key={`${index}-${pieceIndex}`}>{piece}</code> : piece))
        ),
      )}
    </>
  );
}
