import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { html } from "./html.js";
import { getJson, signedIn, signOut, Unauthenticated } from "./api.js";
import { SignIn } from "./sign-in.js";
import { DeviceTable } from "./devices.js";
import { IoChart, nextSamples } from "./io-chart.js";

const REFRESH_MS = 2000;

function Dashboard({ onSignedOut }) {
  const [system, setSystem] = useState(null);
  const [devices, setDevices] = useState([]);
  const [samples, setSamples] = useState([]);
  const [error, setError] = useState(null);

  useEffect(() => {
    let stopped = false;
    async function refresh() {
      try {
        const [sys, devs] = await Promise.all([getJson("/api/v1/system"), getJson("/api/v1/devices")]);
        if (stopped) return;
        setSystem(sys);
        setDevices(devs);
        setSamples((s) => nextSamples(s, devs));
        setError(null);
      } catch (e) {
        if (e instanceof Unauthenticated) {
          onSignedOut("Your session is no longer accepted; please sign in again.");
        } else if (!stopped) {
          setError(e.message);
        }
      }
    }
    refresh();
    const timer = setInterval(refresh, REFRESH_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, []);

  return html`
    <header>
      <h1>Blockwork</h1>
      <span class="version" id="version">${system ? `version ${system.version}` : ""}</span>
      <button class="link" id="sign-out" onClick=${() => { signOut(); onSignedOut(null); }}>Sign out</button>
    </header>
    <main>
      ${error && html`<p class="error" role="alert">${error}</p>`}
      <section class="card">
        <h2>Block devices</h2>
        <${DeviceTable} devices=${devices} />
      </section>
      <section class="card">
        <h2>Requests per second</h2>
        <${IoChart} samples=${samples} />
      </section>
    </main>`;
}

function App() {
  const [session, setSession] = useState({ in: signedIn(), message: null });
  return session.in
    ? html`<${Dashboard} onSignedOut=${(message) => setSession({ in: false, message })} />`
    : html`<${SignIn} message=${session.message} onSignedIn=${() => setSession({ in: true, message: null })} />`;
}

const root = document.getElementById("app");
root.textContent = ""; // drop the "Loading…" placeholder: render() adds to what is there
render(html`<${App} />`, root);
