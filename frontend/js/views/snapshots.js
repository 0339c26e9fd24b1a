import { html } from "../html.js";
import { useState } from "preact/hooks";
import { enc, send } from "../api.js";
import { Action, Card, Field, ProgressBar } from "../ui.js";
import { bytes, duration, percent } from "../format.js";

// Recent fill of each snapshot, to estimate when its COW space runs out: name -> [{t, fill}].
const fills = new Map();
const FILL_WINDOW_S = 120;

/** Seconds until `fill` reaches 100 % at the rate seen over the last two minutes, or null when not filling. */
export function timeToFull(history) {
  if (history.length < 2) return null;
  const first = history[0];
  const last = history[history.length - 1];
  const rate = (last.fill - first.fill) / (last.t - first.t);
  return rate > 0 ? (100 - last.fill) / rate : null;
}

function record(snapshot) {
  const now = Date.now() / 1000;
  const h = (fills.get(snapshot.name) ?? []).filter((p) => now - p.t <= FILL_WINDOW_S);
  if (!h.length || h[h.length - 1].fill !== snapshot.fillPercent || now - h[h.length - 1].t > 5) h.push({ t: now, fill: snapshot.fillPercent });
  fills.set(snapshot.name, h);
  return timeToFull(h);
}

/** A volume's snapshots as a tree: fill gauges, time to full, merge progress; take, merge, delete. */
export function Snapshots({ volume, snapshots, thin }) {
  const base = `/api/v1/pools/${enc(volume.pool)}/volumes/${enc(volume.name)}/snapshots`;
  const merging = snapshots.find((x) => x.merge);
  const [name, setName] = useState("");
  const [size, setSize] = useState("");
  return html`<${Card} title=${`Snapshots of ${volume.name}`} id=${`snapshots-${volume.name}`}>
    <ul class="tree"><li><strong>${volume.name}</strong> (${bytes(volume.sizeBytes)})
      <ul>${snapshots.map((x) => {
        const ttf = record(x);
        return html`<li class="snapshot" data-name=${x.name}>
          <span class="name">${x.name}</span> <span class=${`health ${x.state === "active" ? "ok" : x.state}`}>${x.state}</span>
          <${FillGauge} snapshot=${x} ttf=${ttf} />
          ${x.merge && html`<${ProgressBar} id=${`merge-${x.name}`} percent=${x.merge.percent}
            label=${`merging into ${volume.name}: ${percent(x.merge.percent)}`} />`}
          <${Action} id=${`merge-${x.name}-button`} label="merge (roll back)"
            disabled=${merging ? `${merging.name} is merging` : x.state !== "active" ? `the snapshot is ${x.state}` : null}
            confirm=${{ name: x.name, removes: [`every change made to ${volume.name} since ${x.name} was taken`, `snapshot ${x.name} (it becomes the volume)`] }}
            run=${() => send("POST", `${base}/${enc(x.name)}/merge`)} />
          <${Action} id=${`delete-${x.name}`} label="delete" kind="danger" disabled=${x.merge ? "merging" : null}
            confirm=${{ name: x.name, removes: [`snapshot ${x.name} and its ${bytes(x.allocatedBytes)} of copied blocks`] }}
            run=${() => send("DELETE", `${base}/${enc(x.name)}`)} />
        </li>`;
      })}</ul></li></ul>
    <form class="row" onSubmit=${(e) => e.preventDefault()}>
      <${Field} id=${`snapshot-name-${volume.name}`} label="Snapshot name" value=${name} onValue=${setName} size="10" />
      ${!thin && html`<${Field} id=${`snapshot-size-${volume.name}`} label="COW size" value=${size} onValue=${setSize} placeholder="256MiB" size="7" />`}
      <${Action} id=${`take-snapshot-${volume.name}`} label="take snapshot"
        disabled=${!name ? "enter a name" : merging ? `${merging.name} is merging` : null}
        run=${async () => { await send("POST", base, size && !thin ? { name, size } : { name }); setName(""); }} />
    </form>
  <//>`;
}

/**
 * How full the snapshot is: a COW snapshot's copy-on-write space, a thin one's share of its
 * virtual size. An invalid or overflowed COW snapshot lost data: it reads so, with a full red gauge.
 */
function FillGauge({ snapshot: x, ttf }) {
  if (x.state === "invalid" || x.state === "overflow") {
    return html`<${ProgressBar} id=${`fill-${x.name}`} percent=${100} kind="danger"
      label=${`${x.state}: its ${bytes(x.cowSizeBytes ?? x.sizeBytes)} of COW space overflowed, so it no longer holds the volume as it was; delete it`} />`;
  }
  const label = x.type === "thin"
    ? `${percent(x.fillPercent)} of its ${bytes(x.virtualSizeBytes)} mapped (${bytes(x.allocatedBytes)})`
    : `COW ${percent(x.fillPercent)} full (${bytes(x.allocatedBytes)} of ${bytes(x.cowSizeBytes)})`;
  return html`<${ProgressBar} id=${`fill-${x.name}`} percent=${x.fillPercent} label=${label} />
    ${x.type !== "thin" && html`<span class="muted ttf">${ttf === null ? "not filling" : `full in about ${duration(ttf)}`}</span>`}`;
}
