import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/** One limit drawn on the chart: a line through one value per bar (`line`), or a mark on each bar (`perBar`, null where none). */
export interface DrawnLimit {
  label: string;
  line?: number[];
  perBar?: Array<number | null>;
}

const SPEND_COLOR = '#2f5fd0';
const LIMIT_COLORS = ['#c0392b', '#d68910', '#7d3c98'];

/**
 * BUD-1 Costs: spend as bars (one per day, agent, space or model) with the limits drawn over them,
 * drawn with uPlot on a canvas. `labels` name the bars on the x axis; the chart redraws when the
 * data changes and follows the container's width.
 */
export function SpendChart({ labels, values, limits, title }: { labels: string[]; values: number[]; limits: DrawnLimit[]; title: string }) {
  const container = useRef<HTMLDivElement | null>(null);
  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const xs = labels.map((_, index) => index);
    const limitSeries = limits.map((limit) => limit.perBar ?? limit.line ?? labels.map(() => null));
    const data: uPlot.AlignedData = [xs, values, ...limitSeries];
    const bars = uPlot.paths.bars!({ size: [0.6, 64] });
    // A limit changes from one day to the next (a raise for one day), it does not slope between them.
    const steps = uPlot.paths.stepped!({ align: 1 });
    const options: uPlot.Options = {
      title,
      width: Math.max(320, element.clientWidth),
      height: 280,
      scales: { x: { time: false, range: (_self, min, max) => [min - 0.5, max + 0.5] }, y: { range: (_self, _min, max) => [0, Math.max(max, ...limitSeries.flat().map((value) => value ?? 0)) * 1.1 || 1] } },
      axes: [
        // Whole steps only (a bar per step); uPlot picks the smallest step whose labels do not overlap.
        { values: (_self, ticks) => ticks.map((tick) => (Number.isInteger(tick) ? (labels[tick] ?? '') : '')), incrs: [1, 2, 3, 5, 7, 10, 15, 30, 60], space: 70, gap: 4 },
        {
          values: (_self, ticks) => {
            const decimals = Math.max(...ticks) >= 1 ? 2 : 4;
            return ticks.map((tick) => `$${tick.toFixed(decimals)}`);
          },
          size: 70,
        },
      ],
      series: [
        { label: 'Group', value: (_self, index) => (index === null ? '' : (labels[index] ?? '')) },
        { label: 'Spend (USD)', fill: `${SPEND_COLOR}99`, stroke: SPEND_COLOR, paths: bars, points: { show: false }, value: (_self, value) => (value === null ? '—' : `$${value.toFixed(4)}`) },
        ...limits.map((limit, index) => ({
          label: limit.label,
          stroke: LIMIT_COLORS[index % LIMIT_COLORS.length]!,
          width: 2,
          dash: [6, 4],
          // A per-bar limit is a mark on its bar; a limit by day is a line across the days.
          ...(limit.perBar ? { paths: () => null, points: { show: true, size: 10, width: 2 } } : { paths: steps, points: { show: false } }),
          value: (_self: uPlot, value: number | null) => (value === null ? '—' : `$${value.toFixed(4)}`),
        })),
      ],
      legend: { live: true },
    };
    const plot = new uPlot(options, data, element);
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(320, element.clientWidth), height: 280 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [labels, values, limits, title]);
  return <div ref={container} className="spend-chart" data-testid="spend-chart" role="img" aria-label={`${title}: chart of spend with the limits drawn`} />;
}
