"use client";
import { setDisplayTimeZone } from "./format";

/**
 * Rendered first in the page: sets the zone instants are shown in (format.ts) before anything below
 * formats one, on the server's render and in the browser alike, so the two agree.
 */
export function DisplayTimeZone({ zone }: { zone: string }) {
  setDisplayTimeZone(zone);
  return null;
}
