import { html } from "../html.js";
import { useState } from "preact/hooks";
import { send } from "../api.js";
import { useStore } from "../store.js";
import { deviceHref } from "../router.js";
import { Action, Card, Field } from "../ui.js";
import { rate } from "../format.js";
import { TimeChart } from "../charts.js";

const RUNNING = new Set(["queued", "running", "preparing"]);

/** Workloads (fio-like jobs on a device) and the seeds' experiments, each strategy beside the other. */
export function Workloads() {
  const s = useStore();
  return html`
    <${Card} title="Workloads" id="workloads">
      <${StartWorkload} devices=${s.devices.filter((d) => d.kind !== "hidden")} />
      <table id="workload-table"><thead><tr><th>#</th><th>Device</th><th>Pattern</th><th>State</th>
        <th class="num">r/s</th><th class="num">w/s</th><th class="num">%</th><th></th></tr></thead>
        <tbody>${s.workloads.slice().reverse().map((w) => html`<tr data-id=${w.id} data-device=${w.device}>
          <td>${w.id}</td><td><a href=${deviceHref(w.device)}>${w.device}</a></td><td>${w.spec?.rw} ${w.spec?.bs ?? ""}</td>
          <td class="workload-state">${w.state}${w.error ? html` <span class="problem">${w.error}</span>` : ""}</td>
          <td class="num">${rate(w.progress?.readIops)}</td><td class="num">${rate(w.progress?.writeIops)}</td>
          <td class="num">${rate(w.progress?.percent)}</td>
          <td><${Action} id=${`cancel-workload-${w.id}`} label="cancel" disabled=${RUNNING.has(w.state) ? null : `it has ${w.state}`}
            run=${() => send("DELETE", `/api/v1/workloads/${w.id}`)} /></td></tr>`)}</tbody>
      </table>
    <//>
    <${Card} title="Seed experiments" id="experiments">
      <${StartExperiment} />
      ${s.experiments.slice().reverse().map((x) => html`<${Experiment} key=${x.id} experiment=${x} />`)}
    <//>`;
}

function StartWorkload({ devices }) {
  const [device, setDevice] = useState("");
  const [rw, setRw] = useState("randread");
  const [runtime, setRuntime] = useState("30s");
  const [iodepth, setIodepth] = useState("8");
  const writes = rw !== "read" && rw !== "randread";
  const target = devices.find((d) => d.name === device);
  const holdsData = target && target.kind !== "disk";
  return html`<form class="row" onSubmit=${(e) => e.preventDefault()}>
    <label class="field" for="workload-device">Device <select id="workload-device" value=${device}
      onChange=${(e) => setDevice(e.target.value)}><option value="">(choose)</option>
      ${devices.map((d) => html`<option value=${d.name}>${d.name} (${d.kind})</option>`)}</select></label>
    <label class="field" for="workload-rw">Pattern <select id="workload-rw" value=${rw} onChange=${(e) => setRw(e.target.value)}>
      ${["read", "write", "randread", "randwrite", "randrw"].map((x) => html`<option>${x}</option>`)}</select></label>
    <${Field} id="workload-runtime" label="Runtime" value=${runtime} onValue=${setRuntime} size="5" />
    <${Field} id="workload-iodepth" label="Queue depth" value=${iodepth} onValue=${setIodepth} size="4" />
    <${Action} id="start-workload" label="start workload" disabled=${!device ? "choose a device" : null}
      confirm=${writes && holdsData ? { name: device, removes: [`data on ${device}: a ${rw} workload overwrites it`] } : null}
      run=${() => send("POST", "/api/v1/workloads", { device, rw, runtime, iodepth: Number(iodepth),
        ...(writes && holdsData ? { destructive: true } : {}) })} />
  </form>`;
}

function StartExperiment() {
  const [seed, setSeed] = useState("000");
  const [seconds, setSeconds] = useState("2");
  return html`<form class="row" onSubmit=${(e) => e.preventDefault()}>
    <label class="field" for="experiment-seed">Seed <select id="experiment-seed" value=${seed} onChange=${(e) => setSeed(e.target.value)}>
      ${["000", "001", "002", "003", "004"].map((x) => html`<option>${x}</option>`)}</select></label>
    <${Field} id="experiment-seconds" label="Seconds per run" value=${seconds} onValue=${setSeconds} size="3" />
    <${Action} id="start-experiment" label="run experiment" run=${() => send("POST", "/api/v1/experiments", { seed, seconds: Number(seconds) })} />
  </form>`;
}

function Experiment({ experiment: x }) {
  const r = x.result;
  const chart = (st) => st?.samples?.length ? html`<${TimeChart} id=${`experiment-${x.id}-${st.strategy}`} series=${["read IOPS", "write IOPS"]}
    data=${[st.samples.map((p) => p.elapsedMillis / 1000), st.samples.map((p) => p.readIops), st.samples.map((p) => p.writeIops)]} height="120" />` : null;
  return html`<article class="experiment" data-id=${x.id} data-seed=${x.seed}>
    <h3>Seed ${x.seed}: <span class="experiment-state">${x.state}</span>${x.error ? html` <span class="problem">${x.error}</span>` : ""}</h3>
    ${r ? html`<p class="ratio" id=${`ratio-${x.id}`}>${r.metric}: ${r.before.strategy} ${rate(r.before.value)} →
        ${r.after.strategy} ${rate(r.after.value)}, ratio <strong>${r.ratio?.toFixed(2)}×</strong>
        ${r.higherIsBetter ? "(higher is better)" : "(lower is better)"}</p>
      <div class="side-by-side"><div><h4>${r.before.strategy}</h4>${chart(r.before)}</div>
        <div><h4>${r.after.strategy}</h4>${chart(r.after)}</div></div>`
      : html`<p class="muted">${rate(x.progress?.percent)} % done</p>`}
    <${Action} id=${`cancel-experiment-${x.id}`} label="cancel" disabled=${RUNNING.has(x.state) ? null : `it has ${x.state}`}
      run=${() => send("DELETE", `/api/v1/experiments/${x.id}`)} />
  </article>`;
}
