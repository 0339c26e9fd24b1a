import { html } from "./html.js";
import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";

const COLOURS = ["#2563eb", "#d97706", "#059669", "#9333ea"];

/**
 * Tick steps of the time axis, in seconds: never finer than one, since every series is sampled
 * once a second (uPlot's own steps go down to milliseconds, so a chart of a few seconds was
 * labelled :20.500, :21.000, …).
 */
export const WHOLE_SECONDS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];

/**
 * A uPlot time chart. `data` is [times (Unix seconds), series…]; `series` names each one.
 * The plot is made once and fed new data; it follows its box's width.
 */
export function TimeChart({ id, series, data, height = 160, unit = "" }) {
  const box = useRef(null);
  const plot = useRef(null);

  useEffect(() => {
    plot.current = new uPlot({
      width: box.current.clientWidth || 560,
      height,
      series: [{}, ...series.map((label, i) => ({ label, stroke: COLOURS[i % COLOURS.length], width: 2 }))],
      axes: [{ incrs: WHOLE_SECONDS }, { size: 70, values: (u, vals) => vals.map((v) => `${v}${unit}`) }],
    }, [[], ...series.map(() => [])], box.current);
    const resize = () => plot.current.setSize({ width: box.current.clientWidth || 560, height });
    addEventListener("resize", resize);
    return () => {
      removeEventListener("resize", resize);
      plot.current.destroy();
    };
  }, []);

  useEffect(() => {
    plot.current?.setData(data);
  }, [data]);

  // the number of points and the largest value, for people reading the DOM and for the tests
  const max = Math.max(0, ...data.slice(1).flat().filter(Number.isFinite));
  return html`<div class="chart" id=${id} data-points=${data[0]?.length ?? 0} data-max=${max} ref=${box}></div>`;
}

/** iostat samples → the three chart data sets: IOPS, MB/s and latency (µs). */
export function iostatSeries(samples) {
  const t = samples.map((s) => s.time);
  return {
    iops: [t, samples.map((s) => s.readIops), samples.map((s) => s.writeIops)],
    mbps: [t, samples.map((s) => s.readBytesPerSecond / 1e6), samples.map((s) => s.writeBytesPerSecond / 1e6)],
    latency: [t, samples.map((s) => s.readP50Us), samples.map((s) => s.readP99Us),
      samples.map((s) => s.writeP50Us), samples.map((s) => s.writeP99Us)],
  };
}
