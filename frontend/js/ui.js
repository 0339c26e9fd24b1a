import { html } from "./html.js";
import { useEffect, useRef, useState } from "preact/hooks";
import { ProblemError } from "./api.js";
import { store, useStore } from "./store.js";

// The controls every view shares: an action button that says why it cannot run, shows the API's
// problem next to itself and refreshes the store after it ran; the confirmation of destructive
// actions (what is removed, and the name typed); health badges and progress bars.

export const VIEWER_REASON = "viewer: read only";

/** Why the signed-in user cannot act at all, or null. */
export function readOnlyReason(user) {
  return user?.readOnly ? VIEWER_REASON : null;
}

/**
 * A button that runs `run` (an async function). Disabled with the reason shown when `disabled`
 * is a reason string or the user is a viewer. With `confirm` ({ name, removes: [...] }) it asks
 * first, and the name must be typed.
 */
export function Action({ id, label, run, disabled, confirm, kind = "" }) {
  const { user } = useStore();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState(null);
  const reason = readOnlyReason(user) ?? (disabled || null);

  async function click() {
    setProblem(null);
    if (confirm && !(await askConfirm({ title: label, ...confirm }))) return;
    setBusy(true);
    try {
      await run();
      await store.refresh("full");
    } catch (e) {
      setProblem(e instanceof ProblemError ? { title: e.title, detail: e.detail } : { title: "Failed", detail: e.message });
    } finally {
      setBusy(false);
    }
  }

  return html`<span class="action">
    <button type="button" id=${id} class=${kind} disabled=${busy || !!reason} title=${reason ?? ""}
      aria-describedby=${reason && id ? `${id}-why` : undefined} onClick=${click}>${label}</button>
    ${reason && html`<small class="why" id=${id ? `${id}-why` : undefined}>${reason}</small>`}
    ${problem && html`<span class="problem" role="alert" id=${id ? `${id}-problem` : undefined}>
      <strong>${problem.title}</strong> ${problem.detail}</span>`}
  </span>`;
}

/** A labelled form field; `onValue` gets the text as typed. */
export function Field({ id, label, value, onValue, type = "text", placeholder, size }) {
  return html`<label class="field" for=${id}>${label}
    <input id=${id} name=${id} type=${type} value=${value} placeholder=${placeholder} size=${size}
      onInput=${(e) => onValue(type === "checkbox" ? e.target.checked : e.target.value)} /></label>`;
}

let confirmRequest = null;
const confirmListeners = new Set();

function askConfirm(request) {
  return new Promise((resolve) => {
    confirmRequest = { ...request, resolve };
    confirmListeners.forEach((l) => l(confirmRequest));
  });
}

/** The one confirmation dialog: lists what would be removed and wants the object's name typed. */
export function ConfirmHost() {
  const [request, setRequest] = useState(null);
  const [typed, setTyped] = useState("");
  const input = useRef(null);
  const opener = useRef(null); // focus goes back to the button that opened the dialog
  useEffect(() => {
    const l = (r) => { opener.current = document.activeElement; setTyped(""); setRequest(r); };
    confirmListeners.add(l);
    return () => confirmListeners.delete(l);
  }, []);
  useEffect(() => input.current?.focus(), [request]);
  if (!request) return null;
  const close = (ok) => {
    request.resolve(ok);
    confirmRequest = null;
    setRequest(null);
    opener.current?.focus();
  };
  return html`<div class="overlay">
    <div class="card dialog" role="dialog" aria-modal="true" aria-labelledby="confirm-title" id="confirm"
      onKeyDown=${(e) => e.key === "Escape" && close(false)}>
      <h2 id="confirm-title">${request.title} ${request.name}?</h2>
      ${request.removes?.length ? html`<p>This removes:</p>
        <ul id="confirm-removes">${request.removes.map((r) => html`<li>${r}</li>`)}</ul>` : null}
      ${request.warning && html`<p class="warning">${request.warning}</p>`}
      <label class="field" for="confirm-name">Type <code>${request.name}</code> to confirm
        <input id="confirm-name" ref=${input} value=${typed} onInput=${(e) => setTyped(e.target.value)} /></label>
      <div class="buttons">
        <button type="button" id="confirm-cancel" onClick=${() => close(false)}>Cancel</button>
        <button type="button" id="confirm-ok" class="danger" disabled=${typed !== request.name}
          title=${typed !== request.name ? "type the name to confirm" : ""} onClick=${() => close(true)}>${request.title}</button>
      </div>
    </div>
  </div>`;
}

/** A device's health: ok, degraded, recovering, faulty … with the reason on hover and for screen readers. */
export function Health({ health }) {
  if (!health) return html`<span class="health unknown">—</span>`;
  return html`<span class=${`health ${health.state}`} title=${health.reason ?? ""}>${health.state}${health.reason
    ? html`<span class="sr-only">: ${health.reason}</span>` : ""}</span>`;
}

export function ProgressBar({ id, percent, label, kind }) {
  const p = Math.max(0, Math.min(100, percent ?? 0));
  return html`<div class=${kind ? `progress ${kind}` : "progress"} id=${id} role="progressbar" aria-valuemin="0" aria-valuemax="100"
    aria-valuenow=${p.toFixed(1)} aria-label=${label}>
    <div class="bar" style=${`width:${p}%`}></div><span>${label}</span></div>`;
}

export function Card({ title, id, children }) {
  return html`<section class="card" id=${id}><h2>${title}</h2>${children}</section>`;
}
