/** "maxConcurrentRuns" → "max concurrent runs": audit summaries are read by people, field names stay in the details. */
export function fieldWords(field: string): string {
  return field.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
}
