// Unit tests of the dashboard's pure helpers, run in the headless Chromium the browser tests use
// (DashboardScriptsBrowserTest opens this page): no Node, no build. Each test is a function that
// throws on failure; the page lists the results and puts them in window.testResults.

import { bytes, count, duration, percent, rate } from "/js/format.js";
import { applyFrame, KEEP_EVENTS, parseFrame, Store } from "/js/store.js";
import { iostatSeries } from "/js/charts.js";
import { timeToFull } from "/js/views/snapshots.js";
import { colourOf } from "/js/views/pools.js";
import { freeDevices } from "/js/views/array.js";

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

function eq(actual, expected, what = "") {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${what ? `${what}: ` : ""}expected ${e}, got ${a}`);
}

function fails(fn) {
  try {
    fn();
  } catch {
    return;
  }
  throw new Error("expected a failure");
}

// ---- the checker itself can fail (a test that cannot fail proves nothing) ----
test("eq rejects a difference", () => fails(() => eq(bytes(1024), "1 KiB!")));

// ---- format.js ----
test("bytes in binary units", () => {
  eq(bytes(0), "0 B");
  eq(bytes(512), "512 B");
  eq(bytes(1024), "1 KiB");
  eq(bytes(1536), "1.5 KiB");
  eq(bytes(8 * 1024 * 1024), "8 MiB");
  eq(bytes(1024 ** 3), "1 GiB");
  eq(bytes(1.25 * 1024 ** 4), "1.3 TiB");
  eq(bytes(3 * 1024 ** 6), "3072 PiB", "beyond the last unit it keeps counting in PiB");
  eq(bytes(undefined), "—");
  eq(bytes(null), "—");
});

test("rates: one decimal below 100, whole numbers with separators above", () => {
  eq(rate(0), "0.0");
  eq(rate(12.345), "12.3");
  eq(rate(99.94), "99.9");
  eq(rate(100), "100");
  eq(rate(123456.7), "123,457");
  eq(rate(null), "—");
});

test("counts and percentages", () => {
  eq(count(1234567), "1,234,567");
  eq(count(undefined), "—");
  eq(percent(12.345), "12.3 %");
  eq(percent(0), "0.0 %");
  eq(percent(null), "—");
});

test("durations", () => {
  eq(duration(0), "0s");
  eq(duration(59.4), "59s");
  eq(duration(65), "1m 05s");
  eq(duration(3600), "1h 00m");
  eq(duration(3725), "1h 02m");
  eq(duration(-1), "—");
  eq(duration(Infinity), "—");
  eq(duration(null), "—");
});

// ---- store.js: the event-stream frames and what they do to the state ----
test("an SSE frame's type, data and id", () => {
  eq(parseFrame("id: 42\nevent: device\ndata: {\"a\":1}"), { type: "device", data: "{\"a\":1}", id: "42" });
  eq(parseFrame("data: {\"b\":2}"), { type: "message", data: "{\"b\":2}", id: null });
  eq(parseFrame(": keep-alive"), { type: "message", data: "", id: null });
  eq(parseFrame("data: {\"x\":\ndata: 1}").data, "{\"x\":1}", "data lines are joined");
});

test("an event goes first in the recent list and asks for a refresh", () => {
  const state = { events: [{ id: 1 }] };
  const r = applyFrame(state, parseFrame("id: 2\nevent: device\ndata: {\"id\":2}"));
  eq(r, { patch: { events: [{ id: 2 }, { id: 1 }] }, refresh: true });
  eq(state.events, [{ id: 1 }], "the state itself is not changed");
});

test("the recent list keeps the newest KEEP_EVENTS", () => {
  const state = { events: Array.from({ length: KEEP_EVENTS }, (_, i) => ({ id: i })) };
  const r = applyFrame(state, parseFrame("data: {\"id\":\"new\"}"));
  eq(r.patch.events.length, KEEP_EVENTS);
  eq(r.patch.events[0], { id: "new" });
  eq(r.patch.events[KEEP_EVENTS - 1], { id: KEEP_EVENTS - 2 }, "the oldest dropped");
});

test("reset refreshes without an event; keep-alives do nothing; bad JSON still refreshes", () => {
  const state = { events: [] };
  eq(applyFrame(state, parseFrame("event: reset\ndata: {}")), { patch: null, refresh: true });
  eq(applyFrame(state, parseFrame(": ping")), { patch: null, refresh: false });
  eq(applyFrame(state, parseFrame("data: not json")), { patch: null, refresh: true });
});

test("a frame moves the store's resume point and refreshes", async () => {
  const store = new Store();
  const loads = [];
  store.load = async (what) => { loads.push(what); };
  store.stopped = false;
  store.frame("id: 7\nevent: array\ndata: {\"kind\":\"array\"}");
  await store.running;
  eq(store.lastEventId, "7");
  eq(store.state.events, [{ kind: "array" }]);
  eq(loads, ["full"]);
});

test("refreshes never overlap: requests while one runs become one more, full if any was", async () => {
  const store = new Store();
  store.stopped = false;
  const loads = [];
  let running = 0;
  let most = 0;
  const gates = [];
  store.load = (what) => new Promise((resolve) => {
    loads.push(what);
    running++;
    most = Math.max(most, running);
    gates.push(() => { running--; resolve(); });
  });
  const first = store.refresh("iostat");
  store.refresh("iostat");
  store.refresh("full");
  store.refresh("iostat");
  eq(loads, ["iostat"], "one at a time");
  gates.shift()();
  await first;
  await new Promise((r) => setTimeout(r, 0));
  eq(loads, ["iostat", "full"], "the three waiting became one full refresh");
  gates.shift()();
  await store.running;
  await new Promise((r) => setTimeout(r, 0));
  eq(loads.length, 2, "nothing more");
  eq(most, 1, "never two at once");
});

// ---- charts, snapshots, pools, arrays ----
test("iostat samples become the three chart data sets", () => {
  const s = iostatSeries([
    { time: 10, readIops: 1, writeIops: 2, readBytesPerSecond: 3e6, writeBytesPerSecond: 4e6, readP50Us: 5, readP99Us: 6, writeP50Us: 7, writeP99Us: 8 },
    { time: 11, readIops: 9, writeIops: 10, readBytesPerSecond: 0, writeBytesPerSecond: 1e6, readP50Us: 0, readP99Us: 0, writeP50Us: 1, writeP99Us: 2 },
  ]);
  eq(s.iops, [[10, 11], [1, 9], [2, 10]]);
  eq(s.mbps, [[10, 11], [3, 0], [4, 1]]);
  eq(s.latency, [[10, 11], [5, 0], [6, 0], [7, 1], [8, 2]]);
});

test("time to full from the fill rate", () => {
  eq(timeToFull([]), null);
  eq(timeToFull([{ t: 0, fill: 10 }]), null, "one point has no rate");
  eq(timeToFull([{ t: 0, fill: 10 }, { t: 10, fill: 20 }]), 80, "1 %/s with 80 % left");
  eq(timeToFull([{ t: 0, fill: 20 }, { t: 10, fill: 20 }]), null, "not filling");
});

test("volume colours are stable and differ", () => {
  eq(colourOf("v1"), colourOf("v1"));
  if (colourOf("v1") === colourOf("v2")) throw new Error("v1 and v2 share a colour");
});

test("free devices: unused, healthy disks, arrays and dm devices only", () => {
  const d = (name, kind, holders = [], state = "ok") => ({ name, kind, holders, health: { state } });
  eq(freeDevices([d("a", "disk"), d("b", "disk", ["md0"]), d("c", "disk", [], "faulty"), d("v", "volume"),
    d("md1", "array"), d("m", "dm")]).map((x) => x.name), ["a", "md1", "m"]);
});

async function run() {
  const results = [];
  for (const t of tests) {
    try {
      await t.fn();
      results.push({ name: t.name, ok: true });
    } catch (e) {
      results.push({ name: t.name, ok: false, message: String(e?.message ?? e) });
    }
  }
  const list = document.getElementById("results");
  for (const r of results) {
    const li = document.createElement("li");
    li.textContent = `${r.ok ? "ok" : "FAILED"} ${r.name}${r.message ? `: ${r.message}` : ""}`;
    list.append(li);
  }
  window.testResults = results;
}

run();
