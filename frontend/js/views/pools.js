import { html } from "../html.js";
import { useEffect, useState } from "preact/hooks";
import { enc, getJson, send } from "../api.js";
import { useStore } from "../store.js";
import { deviceHref, href } from "../router.js";
import { Action, Card, Field, Health, ProgressBar } from "../ui.js";
import { bytes, counted, percent } from "../format.js";
import { freeDevices } from "./array.js";
import { Snapshots } from "./snapshots.js";

/** Pools: capacity, the extent map, volumes and their snapshots, and everything done to them. */
export function Pools({ args }) {
  return args.length ? html`<${PoolDetail} name=${args[0]} />` : html`<${PoolList} />`;
}

function PoolList() {
  const s = useStore();
  const [name, setName] = useState("");
  const [device, setDevice] = useState("");
  const free = freeDevices(s.devices);
  return html`<${Card} title="Pools" id="pools">
    ${s.pools.length === 0 && html`<p class="muted">No pools yet.</p>`}
    ${s.pools.map((p) => html`<div class="pool-row" data-name=${p.name}>
      <a href=${href("pools", p.name)}>${p.name}</a> on <a href=${deviceHref(p.device)}>${p.device}</a>
      <${ProgressBar} percent=${p.capacityBytes ? 100 * p.usedBytes / p.capacityBytes : 0}
        label=${`${bytes(p.usedBytes)} of ${bytes(p.capacityBytes)} used, ${counted(p.volumeCount, "volume")}`} /></div>`)}
    <form class="row" onSubmit=${(e) => e.preventDefault()}>
      <${Field} id="pool-name" label="Name" value=${name} onValue=${setName} size="10" />
      <label class="field" for="pool-device">Device
        <select id="pool-device" value=${device} onChange=${(e) => setDevice(e.target.value)}>
          <option value="">(choose)</option>${free.map((d) => html`<option value=${d.name}>${d.name} (${bytes(d.sizeBytes)})</option>`)}
        </select></label>
      <${Action} id="create-pool" label="create pool"
        disabled=${!name ? "enter a name" : free.length === 0 ? "no unused device" : !device ? "choose a device" : null}
        run=${() => send("POST", "/api/v1/pools", { name, device })} />
    </form>
  <//>`;
}

/** Distinct, stable colours for volumes on the extent map. */
export function colourOf(name) {
  let h = 0;
  for (const c of name) h = (h * 31 + c.charCodeAt(0)) % 360;
  return `hsl(${h} 60% 55%)`;
}

function PoolDetail({ name }) {
  const s = useStore();
  const p = s.pools.find((x) => x.name === name);
  const volumes = s.volumes.filter((v) => v.pool === name);
  const allocations = useAllocations(name, s.refreshes);
  if (!p) return html`<${Card} title=${`Pool ${name}`} id="pool-missing"><p class="muted">${s.loaded ? "No such pool." : "Loading…"}</p><//>`;
  const total = p.extents.total || 1;
  return html`
    <${Card} title=${`Pool ${name}`} id="pool-detail">
      <p>On <a href=${deviceHref(p.device)}>${p.device}</a> (${p.deviceKind}), extents of ${bytes(p.extentSizeBytes)}.</p>
      <${ProgressBar} id="pool-capacity-bar" percent=${100 * p.usedBytes / (p.capacityBytes || 1)}
        label=${`${bytes(p.usedBytes)} of ${bytes(p.capacityBytes)} used (${percent(100 * p.usedBytes / (p.capacityBytes || 1))}), ${bytes(p.freeBytes)} free`} />
      ${p.thinPools?.length > 0 && html`<p id="carved-thin-pools">Thin ${p.thinPools.length === 1 ? "pool" : "pools"} carved from it:
        ${p.thinPools.map((t, i) => html`${i ? ", " : ""}<a href=${href("pools", t)}>${t}</a>`)}</p>`}
      <h3>Extent map</h3>
      <div class="extent-map" id="extent-map" role="img"
        aria-label=${`${p.extents.used} of ${counted(p.extents.total, "extent")} used by ${holders(allocations)}`}>
        ${allocations.map((g) => html`<span class=${`extent ${g.role}`} data-owner=${g.owner} data-role=${g.role} data-extents=${g.extents}
          title=${`${g.owner} (${(ROLE_NAMES[g.role] ?? [g.role])[0]}): extents ${g.poolExtents.first}–${g.poolExtents.last}`}
          style=${`left:${100 * g.poolExtents.first / total}%;width:${Math.max(0.3, 100 * g.extents / total)}%;background:${colourOf(g.owner)}`}></span>`)}
      </div>
      <${Action} id="delete-pool" label="delete pool" kind="danger"
        disabled=${volumes.length ? `the pool has ${counted(volumes.length, "volume")}: delete ${volumes.length === 1 ? "it" : "them"} first`
          : p.thinPools?.length ? `thin pool ${p.thinPools.join(", ")} is carved from it: delete ${p.thinPools.length === 1 ? "it" : "them"} first` : null}
        confirm=${{ name, removes: [`pool ${name} (the device ${p.device} stays)`] }}
        run=${async () => { await send("DELETE", `/api/v1/pools/${enc(name)}`); location.hash = href("pools"); }} />
    <//>
    <${Card} title="Volumes" id="volumes">
      <table id="volume-table"><thead><tr><th>Name</th><th class="num">Size</th><th>State</th><th>Exports</th><th>Actions</th></tr></thead>
        <tbody>${volumes.map((v) => html`<${VolumeRow} key=${v.name} volume=${v} device=${s.devices.find((d) => d.name === v.name)} />`)}</tbody>
      </table>
      <${CreateVolume} pool=${name} free=${p.freeBytes} />
    <//>
    ${volumes.map((v) => html`<${Snapshots} key=${v.name} volume=${v} thin=${p.type === "thin"} snapshots=${s.snapshots[`${v.pool}/${v.name}`] ?? []} />`)}`;
}

/** What holds each run of the pool's used extents: the list leaves them out, so the pool is read once per refresh. */
function useAllocations(pool, refreshes) {
  const [allocations, setAllocations] = useState([]);
  useEffect(() => {
    let current = true;
    getJson(`/api/v1/pools/${enc(pool)}`).then((p) => current && setAllocations(p.allocations ?? [])).catch(() => {});
    return () => { current = false; };
  }, [pool, refreshes]);
  return allocations;
}

/** "1 volume, 1 snapshot COW space": how many owners of each role the allocations have. */
function holders(allocations) {
  const owners = new Map();
  for (const g of allocations) owners.set(g.role, (owners.get(g.role) ?? new Set()).add(g.owner));
  return [...owners].map(([role, names]) => counted(names.size, ...(ROLE_NAMES[role] ?? [role]))).join(", ") || "nothing";
}

const ROLE_NAMES = { "volume": ["volume", "volumes"], "snapshot-cow": ["snapshot's COW space", "snapshots' COW space"],
  "thin-pool-data": ["thin pool's data", "thin pools' data"], "thin-pool-metadata": ["thin pool's metadata", "thin pools' metadata"] };

function VolumeRow({ volume: v, device }) {
  const base = `/api/v1/pools/${enc(v.pool)}/volumes/${enc(v.name)}`;
  const [size, setSize] = useState("");
  const [newName, setNewName] = useState("");
  const id = (what) => `${what}-${v.name}`;
  const removes = [`volume ${v.name} and its ${bytes(v.sizeBytes)} of data`,
    ...v.snapshots.map((x) => `snapshot ${x}`), ...v.exports.map((x) => `export ${x}`)];
  return html`<tr data-name=${v.name}>
    <td><a href=${deviceHref(v.name)}>${v.name}</a></td>
    <td class="num">${bytes(v.sizeBytes)}</td>
    <td><${Health} health=${device?.health} /></td>
    <td>${v.exports.join(", ") || "—"}</td>
    <td class="row">
      <${Field} id=${id("size")} label="New size" value=${size} onValue=${setSize} placeholder="2GiB" size="7" />
      <${Action} id=${id("resize")} label="resize" disabled=${!size ? "enter a size" : null}
        run=${() => send("PATCH", base, { size })} />
      ${v.exports.length
        ? html`<${Action} id=${id("unexport")} label="unexport" run=${() => Promise.all(v.exports.map((x) => send("DELETE", `/api/v1/exports/${enc(x)}`)))} />`
        : html`<${Action} id=${id("export")} label="export over NBD" run=${() => send("POST", "/api/v1/exports", { name: v.name, device: v.name })} />`}
      <${Field} id=${id("new-name")} label="New name" value=${newName} onValue=${setNewName} size="8" />
      <${Action} id=${id("rename")} label="rename"
        disabled=${!newName ? "enter a new name" : newName === v.name ? "that is its name already"
          : v.exports.length ? "exported: unexport it first"
          : device?.holders?.length ? `used by ${device.holders.join(", ")}: remove it first` : null}
        run=${async () => { await send("POST", `${base}/rename`, { newName }); setNewName(""); }} />
      <${Action} id=${id("delete")} label="delete" kind="danger"
        disabled=${v.exports.length ? "exported: unexport it first" : null}
        confirm=${{ name: v.name, removes }} run=${() => send("DELETE", base)} />
    </td></tr>`;
}

function CreateVolume({ pool, free }) {
  const [name, setName] = useState("");
  const [size, setSize] = useState("");
  return html`<form class="row" onSubmit=${(e) => e.preventDefault()}>
    <${Field} id="volume-name" label="Name" value=${name} onValue=${setName} size="10" />
    <${Field} id="volume-size" label=${`Size (${bytes(free)} free)`} value=${size} onValue=${setSize} placeholder="1GiB" size="7" />
    <${Action} id="create-volume" label="create volume"
      disabled=${!name ? "enter a name" : !size ? "enter a size" : free === 0 ? "the pool is full" : null}
      run=${async () => { await send("POST", `/api/v1/pools/${enc(pool)}/volumes`, { name, size }); setName(""); setSize(""); }} />
  </form>`;
}

