// Talks to the Blockwork API with the signed-in user's Basic credentials. They live in
// sessionStorage: gone when the tab closes, never in a cookie. X-Requested-With tells the
// service not to send a WWW-Authenticate challenge, so the browser shows no pop-up of its own.

const KEY = "blockwork.credentials";

export class Unauthenticated extends Error {}

/** An RFC 9457 problem from the API: its title and detail are what the page shows. */
export class ProblemError extends Error {
  constructor(status, problem) {
    super(problem.detail ?? problem.title ?? `HTTP ${status}`);
    this.status = status;
    this.title = problem.title ?? `HTTP ${status}`;
    this.detail = problem.detail ?? "";
    this.field = problem.field;
    this.line = problem.line;
  }
}

export function signedIn() {
  return sessionStorage.getItem(KEY) !== null;
}

export function signIn(user, password) {
  sessionStorage.setItem(KEY, btoa(`${user}:${password}`));
}

export function signOut() {
  sessionStorage.removeItem(KEY);
}

/** The request headers; no Authorization at all once signed out (an empty one is no sign-in attempt). */
export function headers(extra = {}) {
  const credentials = sessionStorage.getItem(KEY);
  return {
    "Accept": "application/json",
    ...(credentials === null ? {} : { "Authorization": `Basic ${credentials}` }),
    "X-Requested-With": "blockwork-dashboard",
    ...extra,
  };
}

async function handle(response) {
  if (response.status === 401) {
    signOut();
    throw new Unauthenticated("user name or password not accepted");
  }
  if (!response.ok) {
    const problem = await response.json().catch(() => ({}));
    throw new ProblemError(response.status, problem);
  }
  return response.status === 204 ? null : response.json().catch(() => null);
}

export async function getJson(path) {
  return handle(await fetch(path, { headers: headers() }));
}

/** A change: POST, PUT, PATCH or DELETE with an optional JSON body. */
export async function send(method, path, body) {
  const init = { method, headers: headers(body === undefined ? {} : { "Content-Type": "application/json" }) };
  if (body !== undefined) init.body = JSON.stringify(body);
  return handle(await fetch(path, init));
}

export const enc = encodeURIComponent;
