import { describe, expect, it } from 'vitest';
import { cronMatches, cronProblem, nextCronTime, parseCron } from '../../../src/core/pipelines/cron.js';

describe('five-field cron (PIPE-1 schedule triggers, UTC)', () => {
  it('matches lists, ranges and steps', () => {
    const schedule = parseCron('*/15 9-17 * * 1-5');
    expect(cronMatches(schedule, new Date('2026-12-01T09:30:00Z'))).toBe(true); // a Tuesday
    expect(cronMatches(schedule, new Date('2026-12-01T09:31:00Z'))).toBe(false);
    expect(cronMatches(schedule, new Date('2026-12-06T09:30:00Z'))).toBe(false); // a Sunday
    expect(cronMatches(parseCron('0 0 * * 7'), new Date('2026-12-06T00:00:00Z'))).toBe(true);
    expect(cronMatches(parseCron('5,10 * * * *'), new Date('2026-12-01T03:10:00Z'))).toBe(true);
  });

  it('when both day fields are restricted, either matches (classic cron)', () => {
    const schedule = parseCron('0 12 1 * 1');
    expect(cronMatches(schedule, new Date('2026-12-01T12:00:00Z'))).toBe(true); // the 1st (a Tuesday)
    expect(cronMatches(schedule, new Date('2026-12-07T12:00:00Z'))).toBe(true); // a Monday
    expect(cronMatches(schedule, new Date('2026-12-08T12:00:00Z'))).toBe(false);
  });

  it('finds the next matching minute', () => {
    expect(nextCronTime(parseCron('30 2 * * *'), new Date('2026-12-01T02:30:00Z'))?.toISOString()).toBe('2026-12-02T02:30:00.000Z');
    expect(nextCronTime(parseCron('0 0 29 2 *'), new Date('2026-12-01T00:00:00Z'))?.toISOString()).toBe('2028-02-29T00:00:00.000Z');
    expect(nextCronTime(parseCron('* * * * *'), new Date('2026-12-01T02:30:45Z'))?.toISOString()).toBe('2026-12-01T02:31:00.000Z');
  });

  it('names the field that is wrong', () => {
    expect(cronProblem('* * * *')).toContain('5 fields');
    expect(cronProblem('60 * * * *')).toContain('minute');
    expect(cronProblem('* 24 * * *')).toContain('hour');
    expect(cronProblem('* * 0 * *')).toContain('day-of-month');
    expect(cronProblem('* * * 13 *')).toContain('month');
    expect(cronProblem('* * * * 8')).toContain('day-of-week');
    expect(cronProblem('5-1 * * * *')).toContain('backwards');
    expect(cronProblem('*/0 * * * *')).toContain('minute');
    expect(cronProblem('a * * * *')).toContain('minute');
    expect(cronProblem('0 3 * * *')).toBeNull();
  });
});
