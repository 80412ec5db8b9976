/**
 * A read's body as a before/after comparison should see it. The list of people here is stamped with
 * the time it was read (so the web app keeps the fresher of two lists), which changes between two
 * reads while the list does not.
 */
export function comparableReadBody(url: string, body: string): string {
  return url.endsWith('/presence/operators') ? body.replace(/"updatedAt":"[^"]*"/, '"updatedAt":"(read time)"') : body;
}
