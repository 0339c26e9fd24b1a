import { h } from "preact";
import htm from "htm";

/** JSX-like templates without a build step. */
export const html = htm.bind(h);
