import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';

/** A fetched page as the model reads it. */
export interface PageText {
  title: string | null;
  text: string;
  /** How the body was turned into text, for the result's header. */
  format: 'markdown (readable article)' | 'markdown (whole page)' | 'json' | 'text';
}

const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
// Scripts, styles and forms are no reading matter; images keep their alt text through turndown's rule.
turndown.remove(['head', 'script', 'style', 'noscript', 'iframe', 'form', 'svg', 'canvas']);

function charsetOf(contentType: string): string {
  const match = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType);
  return match ? match[1]!.toLowerCase() : 'utf-8';
}

function decode(body: Buffer, contentType: string): string {
  try {
    return new TextDecoder(charsetOf(contentType)).decode(body);
  } catch {
    // An unknown charset label: UTF-8 is the web's default and decodes with replacement characters.
    return new TextDecoder('utf-8').decode(body);
  }
}

function isHtml(mediaType: string): boolean {
  return mediaType === 'text/html' || mediaType === 'application/xhtml+xml';
}

/**
 * Turns a fetched body into readable text (TOOL-1): HTML through Readability (the main article, as
 * Firefox's reader view finds it) and then turndown to markdown — the whole body when Readability
 * finds no article; JSON pretty-printed; everything else as decoded text.
 */
export function pageToText(body: Buffer, contentType: string): PageText {
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  const source = decode(body, contentType);
  if (isHtml(mediaType)) {
    const { document } = parseHTML(source);
    const title = document.querySelector('title')?.textContent?.trim() || null;
    // Readability changes the document it reads, so the whole-page fallback converts the source afresh.
    const article = new Readability(document as unknown as ConstructorParameters<typeof Readability>[0]).parse();
    if (article?.content && (article.textContent ?? '').trim().length > 0) {
      return { title: article.title?.trim() || title, text: turndown.turndown(article.content).trim(), format: 'markdown (readable article)' };
    }
    return { title, text: turndown.turndown(source).trim(), format: 'markdown (whole page)' };
  }
  if (mediaType === 'application/json' || mediaType.endsWith('+json')) {
    try {
      return { title: null, text: JSON.stringify(JSON.parse(source), null, 2), format: 'json' };
    } catch {
      return { title: null, text: source, format: 'text' };
    }
  }
  return { title: null, text: source, format: 'text' };
}
