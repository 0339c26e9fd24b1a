const UNITS = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];

/** 1073741824 → "1 GiB"; keeps one decimal where it matters. */
export function bytes(n) {
  if (n === undefined || n === null) return "—";
  let i = 0;
  let v = n;
  while (v >= 1024 && i < UNITS.length - 1) {
    v /= 1024;
    i++;
  }
  const text = Number.isInteger(v) ? String(v) : v.toFixed(1);
  return `${text} ${UNITS[i]}`;
}

export function count(n) {
  return n === undefined || n === null ? "—" : n.toLocaleString("en");
}

/**
 * A count with its noun, the one place the dashboard makes a plural: (1, "volume") → "1 volume",
 * (3, "volume") → "3 volumes", (2, "thing needs", "things need") → "2 things need".
 */
export function counted(n, one, many = `${one}s`) {
  return `${count(n)} ${n === 1 ? one : many}`;
}

export function rate(n) {
  if (n === undefined || n === null) return "—";
  return n >= 100 ? Math.round(n).toLocaleString("en") : n.toFixed(1);
}

export function percent(n) {
  return n === undefined || n === null ? "—" : `${n.toFixed(1)} %`;
}

/** Seconds as "1h 02m", "3m 05s" or "12s". */
export function duration(s) {
  if (s === undefined || s === null || s < 0 || !Number.isFinite(s)) return "—";
  s = Math.round(s);
  if (s >= 3600) return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, "0")}s`;
  return `${s}s`;
}

export function time(iso) {
  return iso ? new Date(iso).toLocaleTimeString("en-GB") : "—";
}
