import { html } from "./html.js";
import { bytes, count } from "./format.js";

/** The block devices of every kind, with their request counters. */
export function DeviceTable({ devices }) {
  if (devices.length === 0) {
    return html`<p class="muted" id="no-devices">No block devices yet. Create a disk with
      <code>POST /api/v1/disks</code>.</p>`;
  }
  return html`
    <table id="devices">
      <thead>
        <tr>
          <th>Name</th><th>Kind</th><th class="num">Size</th><th>State</th>
          <th class="num">Reads</th><th class="num">Writes</th><th class="num">Read</th><th class="num">Written</th>
        </tr>
      </thead>
      <tbody>
        ${devices.map((d) => html`
          <tr key=${d.name} data-name=${d.name}>
            <td class="name">${d.name}</td>
            <td><span class="kind">${d.kind}</span></td>
            <td class="num">${bytes(d.sizeBytes)}</td>
            <td title=${d.state.reason ?? ""}>
              <span class=${`state ${d.state.actual}`}>${d.state.actual}</span>
            </td>
            <td class="num">${count(d.stats?.reads)}</td>
            <td class="num">${count(d.stats?.writes)}</td>
            <td class="num">${bytes(d.stats?.readBytes)}</td>
            <td class="num">${bytes(d.stats?.writtenBytes)}</td>
          </tr>`)}
      </tbody>
    </table>`;
}
