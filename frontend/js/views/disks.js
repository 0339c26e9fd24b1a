import { html } from "../html.js";
import { useState } from "preact/hooks";
import { enc, send } from "../api.js";
import { useStore } from "../store.js";
import { deviceHref } from "../router.js";
import { Action, Card, Field, Health } from "../ui.js";
import { bytes } from "../format.js";
import { effectiveHealth } from "./devices.js";

const FAULTS = [["failReads", "fail reads"], ["failWrites", "fail writes"], ["failFlushes", "fail flushes"]];

/** Backing disks: create them, inject latency and faults, cut the power. */
export function Disks() {
  const s = useStore();
  return html`<${Card} title="Disks" id="disks">
    <table id="disk-table"><thead><tr><th>Name</th><th>Type</th><th class="num">Size</th><th>Cache</th><th>State</th>
      <th>Faults</th><th>Actions</th></tr></thead>
      <tbody>${s.disks.map((d) => html`<${DiskRow} key=${d.name} disk=${d} device=${s.devices.find((x) => x.name === d.name)}
        arrays=${s.arrays} />`)}</tbody>
    </table>
    <${CreateDisk} />
  <//>`;
}

/** The disk's own controls on its device page. */
export function DiskPanel({ name }) {
  const s = useStore();
  const d = s.disks.find((x) => x.name === name);
  if (!d) return null;
  return html`<${Card} title="Disk" id="disk-panel">
    <table><tbody><${DiskRow} disk=${d} device=${s.devices.find((x) => x.name === name)} arrays=${s.arrays} /></tbody></table>
  <//>`;
}

function DiskRow({ disk: d, device, arrays }) {
  const path = `/api/v1/disks/${enc(d.name)}`;
  const faults = d.faults ?? {};
  const writeback = d.cache === "writeback" && d.type === "memory";
  return html`<tr data-name=${d.name}>
    <td><a href=${deviceHref(d.name)}>${d.name}</a></td><td>${d.type}</td><td class="num">${bytes(d.sizeBytes)}</td>
    <td>${d.cache}</td><td><${Health} health=${device && effectiveHealth(device, arrays)} /></td>
    <td class="row">${FAULTS.map(([key, label]) => html`<${FaultToggle} id=${`${key}-${d.name}`} label=${label}
      on=${!!faults[key]} run=${(on) => send("PATCH", path, { faults: { ...faults, [key]: on } })} />`)}</td>
    <td class="row">
      <${Action} id=${`power-cut-${d.name}`} label="power cut" kind="danger"
        disabled=${writeback ? null : "only a writeback memory disk has a volatile cache to lose"}
        confirm=${{ name: d.name, removes: [`every write to ${d.name} not yet made durable by a flush or FUA`] }}
        run=${() => send("POST", `${path}/power-cut`)} />
      <${Action} id=${`delete-disk-${d.name}`} label="delete" kind="danger"
        disabled=${device?.holders.length ? `in use by ${device.holders.join(", ")}` : null}
        confirm=${{ name: d.name, removes: [`disk ${d.name} and its ${bytes(d.allocatedBytes ?? d.sizeBytes)} of data`] }}
        run=${() => send("DELETE", path)} />
    </td></tr>`;
}

function FaultToggle({ id, label, on, run }) {
  const { user } = useStore();
  const [problem, setProblem] = useState(null);
  const readOnly = user?.readOnly;
  return html`<label class="toggle" for=${id} title=${readOnly ? "viewer: read only" : ""}>
    <input type="checkbox" id=${id} checked=${on} disabled=${readOnly}
      onChange=${(e) => run(e.target.checked).then(() => setProblem(null), (err) => setProblem(err.message))} /> ${label}
    ${problem && html`<span class="problem" role="alert">${problem}</span>`}</label>`;
}

function CreateDisk() {
  const [name, setName] = useState("");
  const [size, setSize] = useState("1GiB");
  const [type, setType] = useState("memory");
  const [cache, setCache] = useState("writethrough");
  const [read, setRead] = useState("");
  const [write, setWrite] = useState("");
  const body = { name, size, type, cache };
  if (read || write) body.latency = { ...(read ? { read } : {}), ...(write ? { write } : {}) };
  return html`<form class="row" id="create-disk-form" onSubmit=${(e) => e.preventDefault()}>
    <${Field} id="disk-name" label="Name" value=${name} onValue=${setName} size="8" />
    <${Field} id="disk-size" label="Size" value=${size} onValue=${setSize} size="7" />
    <label class="field" for="disk-type">Type <select id="disk-type" value=${type} onChange=${(e) => setType(e.target.value)}>
      <option>memory</option><option>file</option><option>null</option></select></label>
    <label class="field" for="disk-cache">Cache <select id="disk-cache" value=${cache} onChange=${(e) => setCache(e.target.value)}>
      <option>writethrough</option><option>writeback</option></select></label>
    <${Field} id="disk-read-latency" label="Read latency" value=${read} onValue=${setRead} placeholder="80us" size="6" />
    <${Field} id="disk-write-latency" label="Write latency" value=${write} onValue=${setWrite} placeholder="80us" size="6" />
    <${Action} id="create-disk" label="create disk" disabled=${!name ? "enter a name" : !size ? "enter a size" : null}
      run=${async () => { await send("POST", "/api/v1/disks", body); setName(""); }} />
  </form>`;
}
