import { html } from "../html.js";
import { useEffect, useState } from "preact/hooks";
import { getJson } from "../api.js";
import { useStore } from "../store.js";
import { deviceHref, href } from "../router.js";
import { Card } from "../ui.js";

const W = 132;
const H = 30;
const COL = 170;
const ROW = 42;

/** Each node's column: one more than the deepest thing it is built on (disks at 0). */
export function layers(nodes) {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const depth = new Map();
  const visit = (id, seen) => {
    if (depth.has(id)) return depth.get(id);
    const n = byId.get(id);
    if (!n || seen.has(id)) return 0;
    seen.add(id);
    const d = n.uses.length ? 1 + Math.max(...n.uses.map((u) => visit(u, seen))) : 0;
    depth.set(id, d);
    return d;
  };
  nodes.forEach((n) => visit(n.id, new Set()));
  return depth;
}

function detailHref(node) {
  if (node.kind === "pool") return href("pools", node.name);
  if (node.kind === "export") return href("pools");
  return deviceHref(node.name);
}

/**
 * The stack as a graph, disks on the left, coloured by health. Selecting a node (click, or
 * Enter on it) shows its blast radius: what would lose data and what would lose redundancy.
 */
export function Topology({ args }) {
  const { topology } = useStore();
  const selected = args[0] ?? null;
  const [impact, setImpact] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    setImpact(null);
    setError(null);
    if (!selected) return;
    getJson(`/api/v1/topology/blast-radius?failed=${encodeURIComponent(selected)}`)
      .then(setImpact).catch((e) => setError(e.message));
  }, [selected, topology]);

  const depth = layers(topology);
  const columns = [];
  for (const n of topology) (columns[depth.get(n.id)] ??= []).push(n);
  const at = new Map();
  columns.forEach((col, c) => col?.forEach((n, r) => at.set(n.id, { x: 10 + c * COL, y: 10 + r * ROW })));
  const width = 20 + Math.max(1, columns.length) * COL;
  const height = 20 + Math.max(1, ...columns.map((c) => c?.length ?? 0)) * ROW;
  const lost = new Set(impact?.losesData ?? []);
  const weakened = new Set(impact?.losesRedundancy ?? []);
  const mark = (id) => (id === selected ? "selected" : lost.has(id) ? "loses-data" : weakened.has(id) ? "loses-redundancy" : "");
  const select = (id) => { location.hash = href("topology", id); };

  return html`
    <${Card} title="Topology" id="topology">
      <p class="muted">Disks on the left, what is built on them to the right; colour is health. Select a disk or member
        to see its blast radius.</p>
      ${topology.length === 0 ? html`<p class="muted">Nothing yet.</p>` : html`
      <div class="graph"><svg width=${width} height=${height} role="group" aria-label="The storage stack">
        ${topology.flatMap((n) => n.uses.filter((u) => at.has(u)).map((u) => html`<line class="edge"
          x1=${at.get(u).x + W} y1=${at.get(u).y + H / 2} x2=${at.get(n.id).x} y2=${at.get(n.id).y + H / 2} />`))}
        ${topology.map((n) => html`<g class=${`node health-${n.health} ${mark(n.id)}`} data-id=${n.id}
            transform=${`translate(${at.get(n.id).x},${at.get(n.id).y})`} tabindex="0" role="button"
            aria-label=${`${n.kind} ${n.name}, ${n.health}${mark(n.id) ? `, ${mark(n.id).replace("-", " ")}` : ""}`}
            onClick=${() => select(n.id)} onKeyDown=${(e) => e.key === "Enter" && select(n.id)}>
          <title>${n.kind} ${n.name}: ${n.health}${n.reason ? ` (${n.reason})` : ""}</title>
          <rect width=${W} height=${H} rx="5" />
          <text x="8" y="19">${n.kind === "disk" ? "" : `${n.kind} `}${n.name}</text>
        </g>`)}
      </svg></div>`}
      <div class="legend"><span class="swatch loses-data"></span> loses data <span class="swatch loses-redundancy"></span>
        loses redundancy <span class="swatch ok"></span> healthy <span class="swatch degraded"></span> degraded or recovering</div>
    <//>
    ${selected && html`<${Card} title=${`If ${selected} failed`} id="blast-radius">
      ${error && html`<p class="problem" role="alert">${error}</p>`}
      ${impact && html`<dl class="facts">
        <dt>Loses data</dt><dd id="blast-data">${impact.losesData.length ? impact.losesData.join(", ") : "nothing"}</dd>
        <dt>Loses redundancy</dt><dd id="blast-redundancy">${impact.losesRedundancy.length ? impact.losesRedundancy.join(", ") : "nothing"}</dd>
      </dl>`}
      ${(() => { const n = topology.find((x) => x.id === selected); return n && html`<p><a href=${detailHref(n)}>Open ${n.kind} ${n.name}</a></p>`; })()}
    <//>`}`;
}
