/**
 * CTX-1 `/context`: the web app's table is read back from the system line the server wrote, so the
 * reader must give back exactly what the report printed — including elided results — and nothing for
 * any other text.
 */
import { describe, expect, it } from 'vitest';
import { contextReport } from '../../../src/services/runs/context-report.js';
import { readContextReport } from '../../../src/services/runs/read-context-report.js';

describe('reading a /context report back as a table', () => {
  it('gives back every row, the total and what was left of the budget', () => {
    const usage = { budget: 20_000, system: 1_200, skills: 340, tools: 2_100, history: 5_000, toolResults: 3_360, total: 12_000, elidedResults: 4 };
    expect(readContextReport(contextReport(usage))).toEqual({
      budget: 20_000,
      rows: [
        { label: 'system prompt', tokens: 1_200 },
        { label: 'skills', tokens: 340 },
        { label: 'tools', tokens: 2_100 },
        { label: 'history', tokens: 5_000 },
        { label: 'tool results', tokens: 3_360 },
      ],
      total: 12_000,
      free: 8_000,
      elidedResults: 4,
    });
  });

  it('an over-full window has nothing free; other text and the no-turn answer are not tables', () => {
    const over = { budget: 1_000, system: 900, skills: 0, tools: 300, history: 0, toolResults: 0, total: 1_200, elidedResults: 0 };
    expect(readContextReport(contextReport(over))).toMatchObject({ total: 1_200, free: 0, elidedResults: 0 });
    expect(readContextReport(contextReport(null))).toBeNull();
    expect(readContextReport('Run failed: boom')).toBeNull();
  });
});
