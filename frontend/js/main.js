import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { html } from "./html.js";
import { signedIn, signOut } from "./api.js";
import { SignIn } from "./sign-in.js";
import { store, useStore } from "./store.js";
import { href, useRoute } from "./router.js";
import { ConfirmHost } from "./ui.js";
import { Overview } from "./views/overview.js";
import { Devices } from "./views/devices.js";
import { DeviceDetail } from "./views/device.js";
import { Topology } from "./views/topology.js";
import { Pools } from "./views/pools.js";
import { Disks } from "./views/disks.js";
import { DmDevices } from "./views/dm.js";
import { Workloads } from "./views/workloads.js";

const VIEWS = [
  ["overview", "Overview", Overview],
  ["devices", "Devices", Devices],
  ["topology", "Topology", Topology],
  ["pools", "Pools", Pools],
  ["disks", "Disks", Disks],
  ["dm", "Device mapper", DmDevices],
  ["workloads", "Workloads", Workloads],
];

const CONNECTION_TEXT = {
  connecting: "connecting…",
  live: "live",
  disconnected: "disconnected: polling, reconnecting…",
};

function Shell({ onSignedOut }) {
  const route = useRoute();
  const state = useStore();
  useEffect(() => {
    store.start(onSignedOut);
    return () => store.stop();
  }, []);
  const [view, ...args] = route;
  const entry = VIEWS.find(([key]) => key === view);
  let page;
  if (view === "devices" && args.length) page = html`<${DeviceDetail} name=${args[0]} />`;
  else if (entry) page = html`<${entry[2]} args=${args} />`;
  else page = html`<p class="error">No page ${view}. <a href=${href("overview")}>Overview</a></p>`;

  return html`
    <header>
      <h1><a href=${href("overview")}>Blockwork</a></h1>
      <span class="version" id="version">${state.system ? `version ${state.system.version}` : ""}</span>
      <span id="connection" class=${`connection ${state.connection}`} role="status"
        title="The event stream: live updates; while it is down the page polls every 2 s">${CONNECTION_TEXT[state.connection]}</span>
      <span class="user" id="who">${state.user ? `${state.user.name} (${state.user.role}${state.user.readOnly ? ", read only" : ""})` : ""}</span>
      <button class="link" id="sign-out" onClick=${() => { store.stop(); signOut(); onSignedOut(null); }}>Sign out</button>
    </header>
    <nav aria-label="Views">
      ${VIEWS.map(([key, label]) => html`<a href=${href(key)} id=${`nav-${key}`}
        aria-current=${key === view ? "page" : undefined}>${label}</a>`)}
    </nav>
    <main>
      ${state.error && html`<p class="error" role="alert" id="store-error">${state.error}</p>`}
      ${page}
    </main>
    <${ConfirmHost} />`;
}

function App() {
  const [session, setSession] = useState({ in: signedIn(), message: null });
  return session.in
    ? html`<${Shell} onSignedOut=${(message) => setSession({ in: false, message })} />`
    : html`<${SignIn} message=${session.message} onSignedIn=${() => setSession({ in: true, message: null })} />`;
}

const root = document.getElementById("app");
root.textContent = ""; // drop the "Loading…" placeholder: render() adds to what is there
render(html`<${App} />`, root);
