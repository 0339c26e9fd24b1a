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
