import { html } from "./html.js";
import { useState } from "preact/hooks";
import { getJson, signIn, signOut, Unauthenticated } from "./api.js";

/** Asks for a user and password and checks them against the API before keeping them. */
export function SignIn({ onSignedIn, message }) {
  const [user, setUser] = useState("admin");
  const [password, setPassword] = useState("");
  const [error, setError] = useState(message);
  const [busy, setBusy] = useState(false);

  async function submit(event) {
    event.preventDefault();
    setBusy(true);
    signIn(user, password);
    try {
      await getJson("/api/v1/system");
      onSignedIn();
    } catch (e) {
      signOut();
      setPassword("");
      setError(e instanceof Unauthenticated ? "User name or password not accepted." : e.message);
    } finally {
      setBusy(false);
    }
  }

  return html`
    <form class="card sign-in" id="sign-in" onSubmit=${submit}>
      <h1>Blockwork</h1>
      <p class="muted">Sign in with a Blockwork user (admin or viewer). Unless set with
        BLOCKWORK_ADMIN_PASSWORD / BLOCKWORK_VIEWER_PASSWORD, the passwords were generated at the
        first start and are kept in <code>credentials.properties</code> in the service's data
        directory (<code>data/</code> by default).</p>
      <label>User <input id="user" name="user" autocomplete="username" value=${user}
        onInput=${(e) => setUser(e.target.value)} /></label>
      <label>Password <input id="password" name="password" type="password" autocomplete="current-password"
        value=${password} onInput=${(e) => setPassword(e.target.value)} /></label>
      ${error && html`<p class="error" role="alert">${error}</p>`}
      <button id="sign-in-button" type="submit" disabled=${busy}>Sign in</button>
    </form>`;
}
