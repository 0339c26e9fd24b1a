import { html } from "../html.js";
import { useState } from "preact/hooks";
import { enc, send } from "../api.js";
import { useStore } from "../store.js";
import { deviceHref } from "../router.js";
import { Action, Card, Field, ProgressBar } from "../ui.js";
import { bytes, count, counted, duration } from "../format.js";

const REDUNDANT = new Set(["raid1", "raid10", "raid4", "raid5", "raid6"]);

/** Devices nothing uses yet: the candidates for a spare or a replacement. */
export function freeDevices(devices) {
  return devices.filter((d) => ["disk", "array", "dm"].includes(d.kind) && d.holders.length === 0 && d.health?.state === "ok");
}

/** mdadm --detail as a page: members with role and state, sync progress, and what can be done. */
export function ArrayPanel({ name }) {
  const s = useStore();
  const a = s.arrays.find((x) => x.name === name);
  if (!a) return null;
  const path = `/api/v1/arrays/${enc(name)}`;
  const redundant = REDUNDANT.has(a.level);
  const sync = a.sync ?? { action: "idle" };
  const busy = sync.action && sync.action !== "idle" ? `array is ${activity(sync.action)}` : null;
  // The server names what may join (not the array itself, nothing built on it, nothing too small).
  const free = (a.joinCandidates ?? []).map((n) => s.devices.find((d) => d.name === n)).filter(Boolean);
  return html`
    <${Card} title=${`${a.level} array`} id="array-detail">
      <dl class="facts">
        <dt>State</dt><dd id="array-state">${(a.arrayState ?? []).join(", ") || a.state.actual}</dd>
        <dt>Devices</dt><dd>${`${a.raidDevices} raid, ${a.activeDevices} active, ${a.workingDevices} working, ${a.failedDevices} failed, ${a.spareDevices} spare`}</dd>
        <dt>Size</dt><dd>${bytes(a.sizeBytes)} (${bytes(a.usedDevSizeBytes)} of each member)</dd>
        ${a.layout && html`<dt>Layout</dt><dd>${a.layout}${a.chunkBytes ? `, chunk ${bytes(a.chunkBytes)}` : ""}</dd>`}
        <dt>Mismatches</dt><dd id="array-mismatches">${mismatches(a)}</dd>
        ${a.journal && html`<dt>Journal</dt><dd id="array-journal">${journalFact(a.journal)}</dd>`}
      </dl>
      ${sync.action && sync.action !== "idle" && html`<div id="array-sync">
        <${ProgressBar} id="sync-progress" percent=${sync.percent}
          label=${`${sync.action}${sync.target ? ` onto ${sync.target}` : ""} ${(sync.percent ?? 0).toFixed(1)} %`} />
        <p class="muted" id="sync-speed">${`${bytes(sync.doneBytes)} of ${bytes(sync.totalBytes)} at ${bytes(sync.bytesPerSecond)}/s,
          finish in ${duration(sync.etaSeconds)}${sync.paused ? " (paused)" : ""}`}</p>
      </div>`}
      <table id="members">
        <thead><tr><th class="num">Number</th><th class="num">RaidDevice</th><th>State</th><th>Device</th><th>Actions</th></tr></thead>
        <tbody>${a.members.map((m) => html`
          <tr data-name=${m.device ?? `slot-${m.slot}`}>
            <td class="num">${m.number >= 0 ? m.number : "-"}</td>
            <td class="num">${m.slot >= 0 ? m.slot : "-"}</td>
            <td class=${`member-state ${m.state}`}>${m.stateText}${m.faultReason ? html` <span class="muted">(${m.faultReason})</span>` : ""}</td>
            <td>${m.device ? html`<a href=${deviceHref(m.device)}>${m.device}</a>` : "-"}</td>
            <td>${m.device && html`<${MemberActions} array=${a} member=${m} path=${path} redundant=${redundant} free=${free} />`}</td>
          </tr>`)}</tbody>
      </table>
    <//>
    <${Card} title="Array actions" id="array-actions">
      <${AddSpare} path=${path} free=${free} />
      <div class="row">
        ${["check", "repair"].map((action) => html`<${Action} id=${`sync-${action}`} label=${action}
          disabled=${!redundant ? `${a.level} has no redundancy to ${action}` : busy}
          run=${() => send("POST", `${path}/sync`, { action })} />`)}
        <${Action} id="sync-pause" label="pause" disabled=${sync.action === "idle" ? "nothing is running" : sync.paused ? "already paused" : null}
          run=${() => send("POST", `${path}/sync`, { action: "pause" })} />
        <${Action} id="sync-resume" label="resume" disabled=${!sync.paused ? "not paused" : null}
          run=${() => send("POST", `${path}/sync`, { action: "resume" })} />
        <${Action} id="sync-idle" label="stop check" disabled=${sync.action !== "check" && sync.action !== "repair"
          ? "no check or repair is running" : null} run=${() => send("POST", `${path}/sync`, { action: "idle" })} />
      </div>
      <${SpeedLimits} path=${path} limits=${a.speedLimits} />
    <//>`;
}

/** The write journal in one line: where it is, how full, and whether it still protects writes. */
export function journalFact(j) {
  if (j.sizeBytes == null) return `${j.device} (not assembled)`;
  const use = `${j.device}: ${bytes(j.usedBytes)} of ${bytes(j.sizeBytes)} in use; records ${count(j.records)}, checkpoints ${count(j.checkpoints)}`;
  if (j.failed) return `${use}; failed: writes are refused until the array is assembled again`;
  if (j.pinned) return `${use}; keeping a failed stripe write's record for the next start: writes are refused once it is full`;
  return use;
}

/**
 * md's mismatch_cnt (sectors) with the run that counted it. Only a resync, check or repair
 * compares copies or parity (and resets the count); a recovery after one leaves its count.
 */
export function mismatches(a) {
  if (a.mismatchCount === undefined || a.mismatchCount === null) return "—";
  const run = { resync: "resync", check: "check", repair: "repair" }[a.lastSyncAction];
  return `${counted(a.mismatchCount, "sector")} found differing by the last ${run ?? "resync, check or repair"}`;
}

function activity(action) {
  return { resync: "resyncing", recover: "recovering", check: "checking", repair: "repairing" }[action] ?? action;
}

function MemberActions({ array, member, path, redundant, free }) {
  const m = `${path}/members/${enc(member.device)}`;
  const faulty = member.state === "faulty";
  const [replacement, setReplacement] = useState("");
  const id = (what) => `${what}-${member.device}`;
  return html`<div class="row">
    <${Action} id=${id("fail")} label="fail" kind="danger"
      disabled=${!redundant ? `${array.level} has no redundancy: failing a member stops the array`
        : faulty ? "already faulty" : member.state === "spare" ? "a spare holds no data (remove it)" : null}
      run=${() => send("POST", `${m}/fail`)} />
    <${Action} id=${id("remove")} label="remove" kind="danger"
      disabled=${faulty || member.state === "spare" ? null : "only a faulty or spare member can be removed: fail it first"}
      confirm=${{ name: member.device, removes: [`${member.device} from array ${array.name} (the device itself stays)`] }}
      run=${() => send("DELETE", m)} />
    <${Action} id=${id("re-add")} label="re-add" disabled=${faulty ? null : "only a failed member can be re-added"}
      run=${async () => { await send("DELETE", m); await send("POST", `${m}/re-add`); }} />
    ${member.state === "in_sync" && redundant && html`<label class="field inline" for=${id("replace-with")}>replace with
      <select id=${id("replace-with")} value=${replacement} onChange=${(e) => setReplacement(e.target.value)}>
        <option value="">(choose)</option>${free.map((d) => html`<option value=${d.name}>${d.name}</option>`)}
      </select></label>
      <${Action} id=${id("replace")} label="replace"
        disabled=${free.length === 0 ? "no device can join: each is in use, too small, or built on this array"
          : !free.some((d) => d.name === replacement) ? "choose a device" : null}
        run=${() => send("POST", `${path}/members`, { device: replacement, role: "replacement", replaces: member.device })} />`}
  </div>`;
}

function AddSpare({ path, free }) {
  const [device, setDevice] = useState("");
  return html`<div class="row">
    <label class="field inline" for="spare-device">Spare
      <select id="spare-device" value=${device} onChange=${(e) => setDevice(e.target.value)}>
        <option value="">(choose)</option>${free.map((d) => html`<option value=${d.name}>${d.name} (${bytes(d.sizeBytes)})</option>`)}
      </select></label>
    <${Action} id="add-spare" label="add spare"
      disabled=${free.length === 0 ? "no device can join: each is in use, too small, or built on this array (create a disk)"
        : !free.some((d) => d.name === device) ? "choose a device" : null}
      run=${async () => { await send("POST", `${path}/members`, { device, role: "spare" }); setDevice(""); }} />
    <${Action} id="re-add-former" label="re-add a former member"
      disabled=${!free.some((d) => d.name === device) ? "choose a device" : null}
      run=${async () => { await send("POST", `${path}/members/${enc(device)}/re-add`); setDevice(""); }} />
  </div>`;
}

function SpeedLimits({ path, limits }) {
  const [min, setMin] = useState("");
  const [max, setMax] = useState("");
  const body = {};
  if (min) body.min = min;
  if (max) body.max = max;
  return html`<div class="row">
    <${Field} id="speed-min" label=${`Minimum (now ${bytes(limits?.min)}/s)`} value=${min} onValue=${setMin} placeholder="1MiB" size="8" />
    <${Field} id="speed-max" label=${`Maximum (now ${bytes(limits?.max)}/s)`} value=${max} onValue=${setMax} placeholder="200MiB" size="8" />
    <${Action} id="set-speed" label="set speed limits" disabled=${!min && !max ? "enter a minimum or a maximum" : null}
      run=${() => send("PUT", `${path}/speed-limits`, body)} />
  </div>`;
}
