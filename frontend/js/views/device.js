import { html } from "../html.js";
import { useEffect, useState } from "preact/hooks";
import { getJson } from "../api.js";
import { useStore } from "../store.js";
import { deviceHref, href } from "../router.js";
import { Card, Health } from "../ui.js";
import { bytes, counted } from "../format.js";
import { iostatSeries, TimeChart } from "../charts.js";
import { ArrayPanel } from "./array.js";
import { DiskPanel } from "./disks.js";
import { DmPanel } from "./dm.js";
import { effectiveHealth } from "./devices.js";

const RANGES = [[60, "1 minute"], [300, "5 minutes"], [600, "10 minutes"]];

/** One device of any kind: health with reason, counters, holders, live charts and its kind's page. */
export function DeviceDetail({ name }) {
  const s = useStore();
  const d = s.devices.find((x) => x.name === name);
  if (!d) {
    return html`<${Card} title=${name} id="device-missing"><p class="muted">${s.loaded
      ? "No such device (it may have been deleted)." : "Loading…"}</p><//>`;
  }
  const volume = s.volumes.find((v) => v.name === name);
  const health = effectiveHealth(d, s.arrays);
  return html`
    <${Card} title=${html`${d.kind} <span class="name">${d.name}</span>`} id="device-detail">
      <dl class="facts">
        <dt>State</dt><dd id="device-health"><${Health} health=${health} />
          ${health?.reason && html` <span class="muted">${health.reason}</span>`}</dd>
        <dt>Size</dt><dd id="device-size">${bytes(d.sizeBytes)}</dd>
        <dt>Used by</dt><dd id="device-holders">${d.holders.length ? d.holders.join(", ") : "nothing"}</dd>
        <dt>Requests</dt><dd>${`${counted(d.stats?.reads, "read")} (${bytes(d.stats?.readBytes)}), ${counted(d.stats?.writes, "write")} (${bytes(d.stats?.writtenBytes)}), ${counted(d.stats?.flushes, "flush", "flushes")}, ${counted(d.stats?.errors, "error")}`}</dd>
        ${volume && html`<dt>Pool</dt><dd><a href=${href("pools", volume.pool)}>${volume.pool}</a></dd>`}
        <dt>Topology</dt><dd><a href=${href("topology", d.name)}>show in the stack, with its blast radius</a></dd>
      </dl>
    <//>
    <${DeviceCharts} name=${name} tick=${s.iostat} />
    ${d.kind === "array" && html`<${ArrayPanel} name=${name} />`}
    ${d.kind === "disk" && html`<${DiskPanel} name=${name} />`}
    ${d.kind === "dm" && html`<${DmPanel} name=${name} />`}`;
}

function DeviceCharts({ name, tick }) {
  const [seconds, setSeconds] = useState(60);
  const [samples, setSamples] = useState([]);
  useEffect(() => {
    let current = true;
    getJson(`/api/v1/devices/${encodeURIComponent(name)}/iostat?seconds=${seconds}`)
      .then((h) => current && setSamples(h.samples)).catch(() => {});
    return () => { current = false; };
  }, [name, seconds, tick]);
  const data = iostatSeries(samples);
  return html`<${Card} title="I/O" id="device-charts">
    <label class="field inline" for="range">Time range
      <select id="range" value=${seconds} onChange=${(e) => setSeconds(Number(e.target.value))}>
        ${RANGES.map(([v, label]) => html`<option value=${v}>${label}</option>`)}
      </select></label>
    <div class="chart-grid">
      <div><h3>IOPS</h3><${TimeChart} id="chart-iops" series=${["read", "write"]} data=${data.iops} /></div>
      <div><h3>MB/s</h3><${TimeChart} id="chart-mbps" series=${["read", "write"]} data=${data.mbps} /></div>
      <div><h3>Latency (µs)</h3><${TimeChart} id="chart-latency"
        series=${["read p50", "read p99", "write p50", "write p99"]} data=${data.latency} /></div>
    </div>
  <//>`;
}

