// A live uPlot chart in a <figure>. uPlot draws on a canvas, so the page
// also shows the current values as text (the dashboard's <dl>).

import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export interface ChartProps {
  caption: string;
  /** Series names; the chart is rebuilt when they change (e.g. a new consumer group). */
  series: string[];
  /** [times in seconds, ...one array per series]; null is a gap. */
  data: (number | null)[][];
  theme: string; // rebuild on a theme change: canvas colours are not CSS
  /** The most the time axis spans (up to the last sample); it spans at least a minute, so a few samples read as a start, not as a stretched chart. */
  windowSeconds: number;
}

const kPalette = ['--chart-1', '--chart-2', '--chart-3', '--chart-4', '--chart-5'];

export function Chart({ caption, series, data, theme, windowSeconds }: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const seriesKey = series.join('\u0000');

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const css = getComputedStyle(document.documentElement);
    const color = (name: string) => css.getPropertyValue(name).trim() || '#888';
    const axis = { stroke: color('--text-muted'), grid: { stroke: color('--border'), width: 1 }, ticks: { stroke: color('--border') } };
    const options: uPlot.Options = {
      width: Math.max(element.clientWidth, 200),
      height: 180,
      legend: { show: true },
      cursor: { y: false },
      scales: { x: { time: true, range: (_u, min, max) => [Math.max(max - windowSeconds, Math.min(min, max - 60)), max] } },
      axes: [axis, { ...axis, size: 60 }],
      series: [{}, ...series.map((label, i) => ({ label, stroke: color(kPalette[i % kPalette.length]), width: 2, spanGaps: false }))],
    };
    const chart = new uPlot(options, data as uPlot.AlignedData, element);
    plot.current = chart;
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(element.clientWidth, 200), height: 180 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
      plot.current = null;
    };
    // data is pushed by the effect below; rebuilding on every tick would flicker.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [seriesKey, theme, windowSeconds]);

  useEffect(() => {
    plot.current?.setData(data as uPlot.AlignedData);
  }, [data]);

  return (
    <figure class="chart">
      <figcaption>{caption}</figcaption>
      <div ref={box} class="chart-canvas" aria-hidden="true" />
    </figure>
  );
}
