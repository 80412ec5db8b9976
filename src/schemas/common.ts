import { z } from 'zod';

/** The error body of every failed request: a stable code, a message, and the field at fault. */
export const ApiError = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    field: z.string().optional(),
    issues: z.array(z.object({ field: z.string(), message: z.string(), code: z.string().optional() })).optional(),
  }),
});
export type ApiError = z.infer<typeof ApiError>;

/** Slug used for agent names and skill directories: lowercase, digits and dashes. */
export const Slug = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/, 'must be a lowercase slug: letters, digits and dashes, not starting or ending with a dash');

export const IsoTime = z.string().describe('ISO-8601 UTC timestamp');

/**
 * Characters no display name may hold (SEC, finding 7): C0 controls (NUL…US), DEL, C1 controls, and
 * the invisible formatting characters that make a name read differently from what it is —
 * zero-width spaces and joiners, bidi marks, embeddings, overrides and isolates, word joiners and the
 * byte-order mark. Names end up in terminals, logs, branch-like labels and the UI; none of these has
 * a use there.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is this pattern's whole job
const UNSAFE_NAME_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/u;

function unsafeCharacterIn(value: string): string | null {
  const match = UNSAFE_NAME_CHARACTER.exec(value);
  if (!match) return null;
  const code = match[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
  return `must not contain control or invisible formatting characters (U+${code} at position ${match.index})`;
}

/** The one refinement every accepted display name goes through: rejects {@link UNSAFE_NAME_CHARACTER}. */
export function withoutControlCharacters<T extends z.ZodType<string>>(schema: T) {
  return schema.superRefine((value, context) => {
    const problem = unsafeCharacterIn(value);
    if (problem) context.addIssue({ code: 'custom', message: problem });
  });
}

/**
 * A trimmed, non-empty display name (workspace, space, conversation title) without control characters.
 * The check runs before trimming: `trim()` would silently drop a trailing tab, newline or BOM, and a
 * name that arrived with one is refused rather than quietly repaired.
 */
export function DisplayName(max: number) {
  return withoutControlCharacters(z.string()).trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);
}

/** A model base URL: an absolute http(s) URL and nothing else — no `file:`, `data:`, `javascript:` or custom schemes. */
export const HttpUrl = z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' });

/**
 * A repository path as the API accepts it: absolute, not option-shaped (a value starting with `-`
 * could be read as a flag by a program it is handed to), without control characters. That it is an
 * existing git repository is checked by the space service, which can run git.
 */
export const RepoPathInput = withoutControlCharacters(
  z
    .string()
    .min(1, 'must not be empty')
    .max(4096)
    .refine((value) => !value.startsWith('-'), 'must not start with "-"')
    .refine((value) => /^(?:\/|[A-Za-z]:[\\/])/.test(value), 'must be an absolute path'),
);
