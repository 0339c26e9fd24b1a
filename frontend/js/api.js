// Talks to the Blockwork API with the signed-in user's Basic credentials. They live in
// sessionStorage: gone when the tab closes, never in a cookie. X-Requested-With tells the
// service not to send a WWW-Authenticate challenge, so the browser shows no pop-up of its own.

const KEY = "blockwork.credentials";

export class Unauthenticated extends Error {}

export function signedIn() {
  return sessionStorage.getItem(KEY) !== null;
}

export function signIn(user, password) {
  sessionStorage.setItem(KEY, btoa(`${user}:${password}`));
}

export function signOut() {
  sessionStorage.removeItem(KEY);
}

export async function getJson(path) {
  const response = await fetch(path, {
    headers: {
      "Accept": "application/json",
      "Authorization": `Basic ${sessionStorage.getItem(KEY) ?? ""}`,
      "X-Requested-With": "blockwork-dashboard",
    },
  });
  if (response.status === 401) {
    signOut();
    throw new Unauthenticated("user name or password not accepted");
  }
  if (!response.ok) {
    const problem = await response.json().catch(() => ({}));
    throw new Error(problem.detail ?? `${response.status} ${response.statusText}`);
  }
  return response.json();
}
