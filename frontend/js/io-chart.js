import { html } from "./html.js";
import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";

const WINDOW = 60;

/**
 * Requests per second across all devices, from the difference of successive samples of the
 * counters. `samples` is a list of {t (seconds), reads, writes}, oldest first.
 */
export function IoChart({ samples }) {
  const box = useRef(null);
  const plot = useRef(null);

  useEffect(() => {
    plot.current = new uPlot({
      width: box.current.clientWidth || 600,
      height: 160,
      series: [
        {},
        { label: "reads/s", stroke: "#2563eb", width: 2 },
        { label: "writes/s", stroke: "#d97706", width: 2 },
      ],
      axes: [{}, { size: 60 }],
    }, [[], [], []], box.current);
    return () => plot.current.destroy();
  }, []);

  useEffect(() => {
    const rates = [[], [], []];
    for (let i = 1; i < samples.length; i++) {
      const dt = samples[i].t - samples[i - 1].t || 1;
      rates[0].push(samples[i].t);
      rates[1].push(Math.max(0, (samples[i].reads - samples[i - 1].reads) / dt));
      rates[2].push(Math.max(0, (samples[i].writes - samples[i - 1].writes) / dt));
    }
    plot.current?.setData(rates);
  }, [samples]);

  return html`<div class="chart" ref=${box}></div>`;
}

/** Adds one sample of the summed counters, keeping the last {@link WINDOW}. */
export function nextSamples(samples, devices) {
  const sum = (key) => devices.reduce((acc, d) => acc + (d.stats?.[key] ?? 0), 0);
  const sample = { t: Date.now() / 1000, reads: sum("reads"), writes: sum("writes") };
  return [...samples, sample].slice(-WINDOW);
}
