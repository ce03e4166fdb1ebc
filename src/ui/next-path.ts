import { NAV } from "./nav";

/** Where sign-in goes when `dopo` names nothing we know. */
export const HOME_PATH = "/";

/** Screens beyond the menu's: the labels of one order. */
const PATTERNS = [/^\/ordini\/\d{1,12}\/etichette$/];
const KNOWN = new Set([HOME_PATH, ...NAV.map((n) => n.href)]);

/** A fixed origin of our own: only whether the browser would stay on it matters, not its name. */
const BASE = "http://banchina.invalid";

/**
 * The page to open after sign-in, from the `dopo` parameter: the browser resolves it against our
 * origin exactly as `URL` does (tabs and newlines dropped, `\` read as `/`, `//host` a new host), so a
 * value is accepted only when, resolved that way, it stays on our origin and names a known screen.
 * Anything else, however it is written, goes to the home screen: sign-in never redirects elsewhere.
 */
export function safeNextPath(dopo: string | string[] | undefined | null): string {
  const value = Array.isArray(dopo) ? dopo[0] : dopo;
  // Only a path of ours: a scheme, a host, a backslash or a control character is never one.
  if (!value?.startsWith("/") || value.includes("\\") || [...value].some((c) => c < " " || c === "\u007f")) return HOME_PATH;
  let url: URL;
  try {
    url = new URL(value, BASE);
  } catch {
    return HOME_PATH;
  }
  if (url.origin !== BASE || url.username || url.password) return HOME_PATH;
  const known = KNOWN.has(url.pathname) || PATTERNS.some((p) => p.test(url.pathname));
  return known ? url.pathname + url.search : HOME_PATH;
}
