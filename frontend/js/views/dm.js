import { html } from "../html.js";
import { useState } from "preact/hooks";
import { enc, ProblemError, send } from "../api.js";
import { store, useStore } from "../store.js";
import { deviceHref } from "../router.js";
import { Action, Card, Field, Health, readOnlyReason } from "../ui.js";

/** Device-mapper devices: their tables and status, and a new one from a table. */
export function DmDevices() {
  const s = useStore();
  const [name, setName] = useState("");
  return html`<${Card} title="Device mapper" id="dm">
    <table id="dm-table"><thead><tr><th>Name</th><th>State</th><th>Table</th></tr></thead>
      <tbody>${s.dm.map((d) => html`<tr data-name=${d.name}><td><a href=${deviceHref(d.name)}>${d.name}</a></td>
        <td><${Health} health=${s.devices.find((x) => x.name === d.name)?.health} /></td><td><pre>${d.table}</pre></td></tr>`)}</tbody>
    </table>
    <h3>Create</h3>
    <${Field} id="dm-name" label="Name" value=${name} onValue=${setName} size="10" />
    <${TableEditor} id="dm-create" disabledReason=${!name ? "enter a name" : null}
      submit=${(table) => send("POST", "/api/v1/dm/devices", { name, table })} label="create" />
  <//>`;
}

/** A dm device's page: its table (load a new one), status, suspend/resume, message. */
export function DmPanel({ name }) {
  const s = useStore();
  const d = s.dm.find((x) => x.name === name);
  const [message, setMessage] = useState("");
  const [sector, setSector] = useState("0"); // dmsetup message's sector: which target gets it
  const [reply, setReply] = useState(null);
  if (!d) return null;
  const path = `/api/v1/dm/devices/${enc(name)}`;
  const suspended = d.info?.state === "SUSPENDED" || d.info?.state === "suspended";
  return html`<${Card} title="Device-mapper table" id="dm-panel">
    <pre id="dm-live-table">${d.table}</pre>
    ${d.inactiveTable && html`<h3>Inactive table (loaded, goes live on resume)</h3><pre id="dm-inactive-table">${d.inactiveTable}</pre>`}
    <p class="muted">Status: ${(d.status ?? []).map((x) => `${x.start} ${x.length} ${x.target} ${x.status}`).join("; ")}</p>
    <div class="row">
      <${Action} id="dm-suspend" label="suspend" disabled=${suspended ? "already suspended" : null} run=${() => send("POST", `${path}/suspend`)} />
      <${Action} id="dm-resume" label="resume" disabled=${suspended || d.info?.inactiveTable ? null : "not suspended and no table waiting"}
        run=${() => send("POST", `${path}/resume`)} />
    </div>
    <h3>Load a new table (it goes live on resume)</h3>
    <${TableEditor} id="dm-load" initial=${d.table} submit=${(table) => send("PUT", `${path}/table`, { table })} label="load table" />
    <div class="row">
      <${Field} id="dm-message-sector" label="Sector" value=${sector} onValue=${setSector} size="6" />
      <${Field} id="dm-message" label="Message" value=${message} onValue=${setMessage} size="20" />
      <${Action} id="dm-send-message" label="send"
        disabled=${!message ? "enter a message" : !/^\d+$/.test(sector) ? "the sector is a whole number" : null}
        run=${async () => setReply((await send("POST", `${path}/message`, { sector: Number(sector), message }))?.reply ?? "")} />
      ${reply !== null && html`<code id="dm-reply">${reply || "(no reply)"}</code>`}
    </div>
  <//>`;
}

/**
 * A table text box; a rejected table shows the problem on the line it names, with line numbers,
 * so the error sits beside the text that caused it.
 */
function TableEditor({ id, initial = "", submit, label, disabledReason }) {
  const { user } = useStore();
  const [text, setText] = useState(initial);
  const [problem, setProblem] = useState(null);
  const [busy, setBusy] = useState(false);
  const reason = readOnlyReason(user) ?? disabledReason ?? (!text.trim() ? "enter a table" : null);
  async function go() {
    setBusy(true);
    setProblem(null);
    try {
      await submit(text);
      await store.refresh("full");
    } catch (e) {
      setProblem(e instanceof ProblemError ? e : { title: "Failed", detail: e.message });
    } finally {
      setBusy(false);
    }
  }
  const lines = text.split("\n");
  return html`<div class="table-editor">
    <label class="field" for=${`${id}-text`}>Table (start length target args, one line each)
      <textarea id=${`${id}-text`} rows=${Math.max(3, lines.length + 1)} cols="70" spellcheck="false"
        onInput=${(e) => setText(e.target.value)}>${text}</textarea></label>
    ${problem && html`<ol class="table-lines" id=${`${id}-lines`}>${lines.map((l, i) => html`<li
      class=${problem.line === i + 1 ? "bad-line" : ""} data-line=${i + 1}><code>${l}</code>${problem.line === i + 1
        ? html` <span class="problem" role="alert">${problem.detail}</span>` : ""}</li>`)}</ol>`}
    ${problem && !problem.line && html`<p class="problem" role="alert" id=${`${id}-problem`}><strong>${problem.title}</strong> ${problem.detail}</p>`}
    <button type="button" id=${`${id}-button`} disabled=${busy || !!reason} title=${reason ?? ""} onClick=${go}>${label}</button>
    ${reason && html`<small class="why">${reason}</small>`}
  </div>`;
}
