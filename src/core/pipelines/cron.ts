/**
 * Five-field cron (PIPE-1 schedule triggers), evaluated in UTC: minute hour day-of-month month
 * day-of-week. Each field is `*`, a number, a range `a-b`, a list `a,b,c`, and any of those with a
 * step `/n`. Day-of-week 0 and 7 are Sunday. As in classic cron, when both day fields are restricted
 * a time matches if either matches.
 */
export interface CronSchedule {
  minutes: ReadonlySet<number>;
  hours: ReadonlySet<number>;
  daysOfMonth: ReadonlySet<number>;
  months: ReadonlySet<number>;
  daysOfWeek: ReadonlySet<number>;
  dayOfMonthRestricted: boolean;
  dayOfWeekRestricted: boolean;
}

interface CronField {
  name: string;
  min: number;
  max: number;
}

const FIELDS: readonly CronField[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12 },
  { name: 'day-of-week', min: 0, max: 7 },
];

export class CronError extends Error {}

function parseNumber(text: string, field: CronField): number {
  if (!/^\d+$/.test(text)) throw new CronError(`${field.name}: ${JSON.stringify(text)} is not a number`);
  const value = Number(text);
  if (value < field.min || value > field.max) throw new CronError(`${field.name}: ${value} is outside ${field.min}-${field.max}`);
  return value;
}

function parseField(text: string, field: CronField): Set<number> {
  const values = new Set<number>();
  for (const part of text.split(',')) {
    const [range, stepText, extra] = part.split('/');
    if (extra !== undefined || range === undefined || range === '') throw new CronError(`${field.name}: ${JSON.stringify(part)} is malformed`);
    const step = stepText === undefined ? 1 : parseNumber(stepText, { ...field, min: 1, max: field.max + 1 });
    let from: number;
    let to: number;
    if (range === '*') {
      from = field.min;
      to = field.max;
    } else if (range.includes('-')) {
      const [a, b, more] = range.split('-');
      if (more !== undefined || a === undefined || b === undefined) throw new CronError(`${field.name}: ${JSON.stringify(range)} is malformed`);
      from = parseNumber(a, field);
      to = parseNumber(b, field);
      if (from > to) throw new CronError(`${field.name}: range ${range} runs backwards`);
    } else {
      from = parseNumber(range, field);
      to = stepText === undefined ? from : field.max;
    }
    for (let value = from; value <= to; value += step) values.add(value);
  }
  return values;
}

/** Parses an expression; throws {@link CronError} naming the field that is wrong. */
export function parseCron(expression: string): CronSchedule {
  const parts = expression.trim().split(/\s+/);
  if (parts.length !== 5) throw new CronError(`expected 5 fields (minute hour day-of-month month day-of-week), got ${parts.length}`);
  const [minutes, hours, daysOfMonth, months, daysOfWeek] = parts.map((part, index) => parseField(part, FIELDS[index]!)) as [Set<number>, Set<number>, Set<number>, Set<number>, Set<number>];
  if (daysOfWeek.has(7)) daysOfWeek.add(0);
  return { minutes, hours, daysOfMonth, months, daysOfWeek, dayOfMonthRestricted: parts[2] !== '*', dayOfWeekRestricted: parts[4] !== '*' };
}

/** Null when valid, else the reason (for the validator). */
export function cronProblem(expression: string): string | null {
  try {
    parseCron(expression);
    return null;
  } catch (error) {
    return error instanceof CronError ? error.message : String(error);
  }
}

/** Whether the UTC minute containing `at` matches. */
export function cronMatches(schedule: CronSchedule, at: Date): boolean {
  if (!schedule.minutes.has(at.getUTCMinutes()) || !schedule.hours.has(at.getUTCHours()) || !schedule.months.has(at.getUTCMonth() + 1)) return false;
  const dom = schedule.daysOfMonth.has(at.getUTCDate());
  const dow = schedule.daysOfWeek.has(at.getUTCDay());
  if (schedule.dayOfMonthRestricted && schedule.dayOfWeekRestricted) return dom || dow;
  return dom && dow;
}

/** The first matching minute strictly after `after` (searched up to five years ahead), or null. */
export function nextCronTime(schedule: CronSchedule, after: Date): Date | null {
  const cursor = new Date(after.getTime());
  cursor.setUTCSeconds(0, 0);
  cursor.setUTCMinutes(cursor.getUTCMinutes() + 1);
  const limit = after.getTime() + 5 * 366 * 24 * 60 * 60_000;
  while (cursor.getTime() <= limit) {
    if (!schedule.months.has(cursor.getUTCMonth() + 1)) {
      cursor.setUTCMonth(cursor.getUTCMonth() + 1, 1);
      cursor.setUTCHours(0, 0, 0, 0);
      continue;
    }
    if (!cronMatches({ ...schedule, minutes: new Set(Array.from({ length: 60 }, (_, index) => index)), hours: new Set(Array.from({ length: 24 }, (_, index) => index)) }, cursor)) {
      cursor.setUTCDate(cursor.getUTCDate() + 1);
      cursor.setUTCHours(0, 0, 0, 0);
      continue;
    }
    if (!schedule.hours.has(cursor.getUTCHours())) {
      cursor.setUTCHours(cursor.getUTCHours() + 1, 0, 0, 0);
      continue;
    }
    if (cronMatches(schedule, cursor)) return cursor;
    cursor.setUTCMinutes(cursor.getUTCMinutes() + 1);
  }
  return null;
}
