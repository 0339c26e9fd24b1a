import { html } from "../html.js";
import { useStore } from "../store.js";
import { deviceHref } from "../router.js";
import { Card, Health } from "../ui.js";
import { bytes, count } from "../format.js";

/** Every user-visible block device (not a volume's -real or a snapshot's -cow) with its health. */
export function Devices() {
  const { devices, arrays } = useStore();
  const visible = devices.filter((d) => d.kind !== "hidden");
  return html`<${Card} title="Block devices" id="devices-card">
    ${visible.length === 0
      ? html`<p class="muted" id="no-devices">No block devices yet. Create a disk on the Disks page or with
        <code>POST /api/v1/disks</code>.</p>`
      : html`<table id="devices">
      <thead><tr><th>Name</th><th>Kind</th><th class="num">Size</th><th>State</th><th>Used by</th>
        <th class="num">Reads</th><th class="num">Writes</th><th class="num">Read</th><th class="num">Written</th></tr></thead>
      <tbody>${visible.map((d) => html`
        <tr key=${d.name} data-name=${d.name}>
          <td class="name"><a href=${deviceHref(d.name)}>${d.name}</a></td>
          <td><span class="kind">${d.kind}</span></td>
          <td class="num">${bytes(d.sizeBytes)}</td>
          <td class="state"><${Health} health=${effectiveHealth(d, arrays)} /></td>
          <td class="muted">${d.holders.join(", ")}</td>
          <td class="num">${count(d.stats?.reads)}</td>
          <td class="num">${count(d.stats?.writes)}</td>
          <td class="num">${bytes(d.stats?.readBytes)}</td>
          <td class="num">${bytes(d.stats?.writtenBytes)}</td>
        </tr>`)}</tbody></table>`}
  <//>`;
}

/**
 * A device's own health, unless an array has failed it: a disk that is a faulty member is shown
 * faulty (with the array and the reason), though the disk itself still answers.
 */
export function effectiveHealth(device, arrays) {
  if (device.health?.state !== "ok") return device.health;
  for (const a of arrays) {
    const m = a.members.find((x) => x.device === device.name && x.state === "faulty");
    if (m) return { state: "faulty", reason: `failed member of ${a.name}${m.faultReason ? `: ${m.faultReason}` : ""}` };
  }
  return device.health;
}
