import { useEffect, useState } from "preact/hooks";
import { getJson, headers, Unauthenticated } from "./api.js";

// One store for every view. Its state comes from the event stream: each event is kept in the
// recent list and schedules one refresh of the lists the views read. The stream is read with
// fetch (EventSource cannot send the Authorization header) and resumed with Last-Event-ID after a
// drop; while it is down the store polls. Refreshes never overlap: one asked for while another
// runs is run once, after it.

const POLL_MS = 2000;          // polling while the stream is down, and the iostat tick
const FULL_EVERY_MS = 15000;   // a full refresh now and then even while live
const RECONNECT_MS = [1500, 3000, 6000, 10000];
export const KEEP_EVENTS = 100;

const LISTS = {
  devices: "/api/v1/devices",
  arrays: "/api/v1/arrays",
  disks: "/api/v1/disks",
  pools: "/api/v1/pools",
  volumes: "/api/v1/volumes",
  dm: "/api/v1/dm/devices",
  exports: "/api/v1/exports",
  workloads: "/api/v1/workloads",
  experiments: "/api/v1/experiments",
  topology: "/api/v1/topology",
  iostat: "/api/v1/iostat",
};

function initialState() {
  return {
    connection: "connecting", // connecting | live | disconnected
    loaded: false,
    user: null,
    system: null,
    error: null,
    events: [],
    snapshots: {}, // "pool/volume" -> [snapshot]
    refreshes: 0,
    ...Object.fromEntries(Object.keys(LISTS).map((k) => [k, []])),
  };
}

/** One server-sent-events frame ("event: …\ndata: …\nid: …") as { type, data, id }; id is null when absent. */
export function parseFrame(text) {
  let type = "message";
  let data = "";
  let id = null;
  for (const line of text.split("\n")) {
    if (line.startsWith("event:")) type = line.slice(6).trim();
    else if (line.startsWith("data:")) data += line.slice(5).trim();
    else if (line.startsWith("id:")) id = line.slice(3).trim();
  }
  return { type, data, id };
}

/**
 * What a frame does to the state: the state patch (the event first in the recent list, at most
 * KEEP_EVENTS kept) and whether the lists must be refreshed. A "reset" (the server lost the
 * client's place) refreshes without an event; a frame without data (a keep-alive) does nothing;
 * one whose data is not JSON keeps no event but still refreshes, as something happened.
 */
export function applyFrame(state, frame) {
  if (!frame.data) return { patch: null, refresh: false };
  if (frame.type === "reset") return { patch: null, refresh: true };
  try {
    const event = JSON.parse(frame.data);
    return { patch: { events: [event, ...state.events].slice(0, KEEP_EVENTS) }, refresh: true };
  } catch {
    return { patch: null, refresh: true };
  }
}

export class Store {
  constructor() {
    this.state = initialState();
    this.listeners = new Set();
    this.running = null;
    this.pending = null;
    this.lastEventId = null;
    this.stream = null;
    this.timers = [];
    this.stopped = true;
    this.onSignedOut = () => {};
  }

  set(patch) {
    this.state = { ...this.state, ...patch };
    this.listeners.forEach((l) => l(this.state));
  }

  subscribe(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async start(onSignedOut) {
    this.onSignedOut = onSignedOut;
    this.stopped = false;
    this.state = initialState();
    try {
      const [user, system, recent] = await Promise.all([
        getJson("/api/v1/system/user"), getJson("/api/v1/system"), getJson(`/api/v1/events/recent?limit=${KEEP_EVENTS}`)]);
      this.set({ user, system, events: recent.slice().reverse() });
      this.lastEventId = recent.length ? recent[recent.length - 1].id : null;
    } catch (e) {
      return this.failed(e);
    }
    await this.refresh("full");
    this.connect(0);
    let sinceFull = 0;
    this.timers.push(setInterval(() => {
      sinceFull += POLL_MS;
      const full = this.state.connection !== "live" || sinceFull >= FULL_EVERY_MS;
      if (full) sinceFull = 0;
      this.refresh(full ? "full" : "iostat");
    }, POLL_MS));
  }

  stop() {
    this.stopped = true;
    this.timers.forEach(clearInterval);
    this.timers = [];
    this.stream?.abort();
  }

  failed(e) {
    if (e instanceof Unauthenticated) {
      this.stop();
      this.onSignedOut("Your session is no longer accepted; please sign in again.");
    } else {
      this.set({ error: e.message });
    }
  }

  /** Refreshes "full" (every list) or only "iostat"; a call while one runs is merged into one after it. */
  refresh(what = "full") {
    if (this.running) {
      this.pending = this.pending === "full" || what === "full" ? "full" : "iostat";
      return this.running;
    }
    this.running = this.load(what).finally(() => {
      this.running = null;
      const next = this.pending;
      this.pending = null;
      if (next && !this.stopped) this.refresh(next);
    });
    return this.running;
  }

  async load(what) {
    const names = what === "full" ? Object.keys(LISTS) : ["iostat"];
    // each list on its own: one that fails (an object deleted mid-read) keeps its last value
    const results = await Promise.allSettled(names.map((n) => getJson(LISTS[n])));
    const failed = results.find((r) => r.status === "rejected");
    if (failed?.reason instanceof Unauthenticated) return this.failed(failed.reason);
    const patch = {};
    names.forEach((n, i) => { if (results[i].status === "fulfilled") patch[n] = results[i].value; });
    if (what === "full") patch.snapshots = await this.loadSnapshots(patch.volumes ?? this.state.volumes);
    if (this.stopped) return;
    this.set({ ...patch, loaded: true, error: failed ? `Could not refresh everything: ${failed.reason.message}` : null,
      refreshes: this.state.refreshes + 1 });
  }

  async loadSnapshots(volumes) {
    const withSnaps = volumes.filter((v) => v.snapshots?.length);
    const lists = await Promise.all(withSnaps.map((v) =>
      getJson(`/api/v1/pools/${encodeURIComponent(v.pool)}/volumes/${encodeURIComponent(v.name)}/snapshots`).catch(() => [])));
    return Object.fromEntries(withSnaps.map((v, i) => [`${v.pool}/${v.name}`, lists[i]]));
  }

  /** Follows the event stream, resuming after the last event seen. */
  async connect(attempt) {
    if (this.stopped) return;
    const controller = new AbortController();
    this.stream = controller;
    let gotBytes = false;
    try {
      const h = headers({ "Accept": "text/event-stream" });
      if (this.lastEventId !== null) h["Last-Event-ID"] = String(this.lastEventId);
      const response = await fetch("/api/v1/events", { headers: h, signal: controller.signal });
      if (response.status === 401) throw new Unauthenticated("not accepted");
      if (!response.ok || !response.body) throw new Error(`event stream: HTTP ${response.status}`);
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        if (!gotBytes) {
          gotBytes = true;
          this.set({ connection: "live" });
          this.refresh("full"); // what changed while it was down
        }
        buffer += value;
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          this.frame(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
      }
    } catch (e) {
      if (e instanceof Unauthenticated) return this.failed(e);
    }
    if (this.stopped) return;
    this.set({ connection: "disconnected" });
    const next = gotBytes ? 0 : Math.min(attempt + 1, RECONNECT_MS.length - 1);
    setTimeout(() => this.connect(next), RECONNECT_MS[next]);
  }

  frame(text) {
    const frame = parseFrame(text);
    if (frame.id !== null) this.lastEventId = frame.id;
    const { patch, refresh } = applyFrame(this.state, frame);
    if (patch) this.set(patch);
    if (refresh) this.refresh("full");
  }

  /** Cuts the event stream as a network drop would (the page reconnects and resumes by itself). */
  dropStream() {
    this.stream?.abort();
  }
}

export const store = new Store();
// For tests and the curious: window.blockwork.store.dropStream() simulates a dropped connection.
window.blockwork = { store };

/** The store's state, re-rendering the component on every change. */
export function useStore() {
  const [state, setState] = useState(store.state);
  useEffect(() => store.subscribe(setState), []);
  return state;
}
