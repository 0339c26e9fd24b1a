import { html } from "../html.js";
import { useEffect, useState } from "preact/hooks";
import { useStore } from "../store.js";
import { deviceHref, href } from "../router.js";
import { Card, Health, ProgressBar } from "../ui.js";
import { bytes, counted, percent, rate, time } from "../format.js";
import { TimeChart } from "../charts.js";
import { effectiveHealth } from "./devices.js";

const TOP_N = 5;
const WINDOW = 120;

/** What needs attention, capacity per pool, the busiest devices and what just happened. */
export function Overview() {
  const s = useStore();
  const visible = s.devices.filter((d) => d.kind !== "hidden");
  const unhealthy = visible.map((d) => ({ ...d, health: effectiveHealth(d, s.arrays) }))
    .filter((d) => d.health && d.health.state !== "ok");
  const fullPools = s.pools.filter((p) => p.capacityBytes && p.usedBytes / p.capacityBytes >= 0.8);
  const snapshots = Object.values(s.snapshots).flat();
  const fullSnaps = snapshots.filter((x) => x.fillPercent >= 80 && x.state === "active");
  const problems = unhealthy.length + fullPools.length + fullSnaps.length;

  return html`
    <${Card} title="Health" id="health-summary">
      <p class=${problems ? "warning" : "good"} id="health-headline">${problems
        ? `${counted(problems, "thing needs", "things need")} attention`
        : `All healthy (${counted(visible.length, "device")})`}</p>
      <ul class="attention">
        ${unhealthy.map((d) => html`<li data-name=${d.name}><a href=${deviceHref(d.name)}>${d.name}</a>${" "}
          <span class="kind">${d.kind}</span>${" "}<${Health} health=${d.health} />${" "}<span class="muted" aria-hidden="true">${d.health.reason}</span></li>`)}
        ${fullPools.map((p) => html`<li data-name=${`pool:${p.name}`}><a href=${href("pools", p.name)}>pool ${p.name}</a>
          is ${percent(100 * p.usedBytes / p.capacityBytes)} full</li>`)}
        ${fullSnaps.map((x) => html`<li data-name=${x.name}><a href=${href("pools", x.pool)}>snapshot ${x.name}</a>
          COW space ${percent(x.fillPercent)} full</li>`)}
      </ul>
    <//>
    <div class="columns">
      <${Card} title="Capacity per pool" id="pool-capacity">
        ${s.pools.length === 0 ? html`<p class="muted">No pools yet (Pools → create one on a device).</p>` : null}
        ${s.pools.map((p) => html`<div class="pool-row" data-name=${p.name}>
          <a href=${href("pools", p.name)}>${p.name}</a>
          <${ProgressBar} percent=${p.capacityBytes ? 100 * p.usedBytes / p.capacityBytes : 0}
            label=${`${bytes(p.usedBytes)} of ${bytes(p.capacityBytes)} used`} /></div>`)}
      <//>
      <${Card} title=${`Busiest devices (top ${TOP_N}, last second)`} id="iotop">
        <${IoTop} iostat=${s.iostat} />
      <//>
    </div>
    <${Card} title="Requests per second, each request counted once" id="overview-chart">
      <${TotalChart} iostat=${s.iostat} />
    <//>
    <${Card} title="Recent events" id="recent-events">
      <${EventList} events=${s.events.slice(0, 12)} />
    <//>`;
}

function IoTop({ iostat }) {
  const rows = iostat.filter((d) => d.kind !== "hidden" && d.samples.length)
    .map((d) => ({ ...d, s: d.samples[d.samples.length - 1] }))
    .sort((a, b) => (b.s.readIops + b.s.writeIops) - (a.s.readIops + a.s.writeIops))
    .slice(0, TOP_N);
  if (rows.length === 0) return html`<p class="muted">No I/O statistics yet.</p>`;
  return html`<table class="compact"><thead><tr><th>Device</th><th class="num">r/s</th><th class="num">w/s</th>
    <th class="num">MB/s</th><th class="num">p99 µs</th></tr></thead><tbody>
    ${rows.map((d) => html`<tr data-name=${d.device}><td><a href=${deviceHref(d.device)}>${d.device}</a></td>
      <td class="num">${rate(d.s.readIops)}</td><td class="num">${rate(d.s.writeIops)}</td>
      <td class="num">${rate((d.s.readBytesPerSecond + d.s.writeBytesPerSecond) / 1e6)}</td>
      <td class="num">${rate(Math.max(d.s.readP99Us, d.s.writeP99Us))}</td></tr>`)}
  </tbody></table>`;
}

/**
 * The whole service's request rate: only the top of each stack (devices nothing else is built on)
 * is summed, so I/O through a volume on an array is counted once, not at every layer.
 */
export function totalOfTops(iostat) {
  let reads = 0;
  let writes = 0;
  let t = 0;
  for (const d of iostat) {
    const s = d.samples[d.samples.length - 1];
    if (!d.top || !s) continue;
    reads += s.readIops;
    writes += s.writeIops;
    t = Math.max(t, s.time);
  }
  return { t, reads, writes };
}

function TotalChart({ iostat }) {
  const [points, setPoints] = useState([]);
  useEffect(() => {
    const p = totalOfTops(iostat);
    if (p.t === 0) return;
    setPoints((old) => (old.length && old[old.length - 1].t === p.t ? old : [...old, p].slice(-WINDOW)));
  }, [iostat]);
  return html`<${TimeChart} id="total-chart" series=${["reads/s", "writes/s"]}
    data=${[points.map((p) => p.t), points.map((p) => p.reads), points.map((p) => p.writes)]} />`;
}

export function EventList({ events }) {
  if (events.length === 0) return html`<p class="muted">Nothing has happened yet.</p>`;
  return html`<ul class="events">${events.map((e) => html`<li key=${e.id} data-type=${e.type}>
    <time>${time(e.time)}</time> <strong>${e.type}</strong> ${e.kind}
    ${e.object && html`<a href=${deviceHref(e.object)}>${e.object}</a>`}
    ${e.state && html` → <span class=${`health ${e.state}`}>${e.state}</span>`}
    ${e.reason && html` <span class="muted">${e.reason}</span>`}</li>`)}</ul>`;
}
