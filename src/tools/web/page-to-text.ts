import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** A fetched page as the model reads it. */
export interface PageText {
  title: string | null;
  text: string;
  /** How the body was turned into text, for the result's header. */
  format: 'markdown (readable article)' | 'markdown (whole page)' | 'json' | 'text';
}

/** The conversion's bounds: its time and the worker's heap. */
export interface PageToTextLimits {
  timeoutMs: number;
  maxHeapMb: number;
}

/**
 * SEC-10: a page is the internet's bytes, and the conversion's cost grows sharply with their shape —
 * Readability took 14 s over 1,000 nested `<div>`s (5 KB) and over a minute over 2,000; 100,000
 * paragraphs (3.5 MB) took 13 s. Run on the event loop, one such page held every request of the
 * server; on a worker it costs that worker alone, and past these bounds the worker is stopped.
 */
export const DEFAULT_PAGE_TO_TEXT_LIMITS: PageToTextLimits = { timeoutMs: 10_000, maxHeapMb: 512 };

/** The libraries the worker loads, resolved here so the worker needs no module resolution of its own. */
const resolve = createRequire(import.meta.url).resolve;
const LIBRARIES = { linkedom: resolve('linkedom'), readability: resolve('@mozilla/readability'), turndown: resolve('turndown') };

/**
 * The conversion (TOOL-1), run on the worker: HTML through Readability (the main article, as
 * Firefox's reader view finds it) and then turndown to markdown — the whole body when Readability
 * finds no article; JSON pretty-printed; everything else as decoded text. Plain JavaScript, evaluated
 * by the worker as its whole program.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { parseHTML } = require(${JSON.stringify(LIBRARIES.linkedom)});
const { Readability } = require(${JSON.stringify(LIBRARIES.readability)});
const TurndownService = require(${JSON.stringify(LIBRARIES.turndown)});
const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
// Scripts, styles and forms are no reading matter; images keep their alt text through turndown's rule.
turndown.remove(['head', 'script', 'style', 'noscript', 'iframe', 'form', 'svg', 'canvas']);
function decode(body, contentType) {
  const match = /charset\\s*=\\s*"?([^";\\s]+)/i.exec(contentType);
  try {
    return new TextDecoder(match ? match[1].toLowerCase() : 'utf-8').decode(body);
  } catch {
    // An unknown charset label: UTF-8 is the web's default and decodes with replacement characters.
    return new TextDecoder('utf-8').decode(body);
  }
}
function convert(body, contentType) {
  const mediaType = contentType.split(';')[0].trim().toLowerCase();
  const source = decode(body, contentType);
  if (mediaType === 'text/html' || mediaType === 'application/xhtml+xml') {
    const { document } = parseHTML(source);
    const titleText = document.querySelector('title')?.textContent?.trim();
    const title = titleText ? titleText : null;
    // Readability changes the document it reads, so the whole-page fallback converts the source afresh.
    const article = new Readability(document).parse();
    if (article && article.content && (article.textContent || '').trim().length > 0) {
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
try {
  parentPort.postMessage({ ok: true, page: convert(workerData.body, workerData.contentType) });
} catch (error) {
  parentPort.postMessage({ ok: false, problem: String((error && error.message) || error).slice(0, 200) });
}
`;

/** The page's text, or why it could not be made (too slow, too large, or the conversion failed). */
export type PageToTextOutcome = { ok: true; page: PageText } | { ok: false; problem: string };

/**
 * Turns a fetched body into readable text on a worker thread (TOOL-1, SEC-10), within the time and
 * heap bounds: a page whose conversion passes them is stopped and refused, the server untouched.
 */
export function pageToText(body: Buffer, contentType: string, limits: Partial<PageToTextLimits> = {}): Promise<PageToTextOutcome> {
  const { timeoutMs, maxHeapMb } = { ...DEFAULT_PAGE_TO_TEXT_LIMITS, ...limits };
  return new Promise<PageToTextOutcome>((settle) => {
    let settled = false;
    const finish = (outcome: PageToTextOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      settle(outcome);
      void worker.terminate();
    };
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { body, contentType }, resourceLimits: { maxOldGenerationSizeMb: maxHeapMb } });
    const timer = setTimeout(() => finish({ ok: false, problem: `turning the page into text took longer than ${timeoutMs / 1000} s (its markup is too deep or too large); it was stopped` }), timeoutMs);
    worker.once('message', (message: PageToTextOutcome) => finish(message));
    worker.once('error', (error) => finish({ ok: false, problem: `the page could not be turned into text: ${error.message.slice(0, 200)}` }));
    worker.once('exit', () => finish({ ok: false, problem: 'the page could not be turned into text (the converter stopped)' }));
  });
}
