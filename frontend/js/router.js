import { useEffect, useState } from "preact/hooks";

/**
 * Hash routes, so every view and object has a URL to share: #/overview, #/devices/md0,
 * #/topology/d1, #/pools/p1 … The route is the list of decoded path parts.
 */
export function parseRoute(hash) {
  const parts = hash.replace(/^#\/?/, "").split("/").filter((p) => p !== "").map(decodeURIComponent);
  return parts.length === 0 ? ["overview"] : parts;
}

export function useRoute() {
  const [route, setRoute] = useState(parseRoute(location.hash));
  useEffect(() => {
    const changed = () => setRoute(parseRoute(location.hash));
    addEventListener("hashchange", changed);
    return () => removeEventListener("hashchange", changed);
  }, []);
  return route;
}

export function href(...parts) {
  return "#/" + parts.map(encodeURIComponent).join("/");
}

/** The page that shows a device of any kind. */
export function deviceHref(name) {
  return href("devices", name);
}
