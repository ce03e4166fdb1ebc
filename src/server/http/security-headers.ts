import { randomBytes } from "node:crypto";

/**
 * The security headers of every answer, set by the service's entry (src/server/main.ts) before the
 * request reaches Next or the REST core.
 *
 * HTML (the screens, /accesso, /api/docs): a Content-Security-Policy with a fresh nonce per request.
 * Next reads the nonce from the request's `Content-Security-Policy` header while it renders and puts it
 * on its own scripts (framework, page chunks, inline data); `'strict-dynamic'` lets those scripts load
 * the chunks they import (Swagger UI's bundle among them), and nothing else runs: no inline script
 * without the nonce, no script from another origin, no eval. The root layout reads `x-nonce` for
 * Mantine's colour-scheme script. Styles allow inline: Mantine and Swagger UI set style attributes,
 * which nonces cannot cover; a style cannot run code. Framing is refused (`frame-ancestors 'none'`,
 * and X-Frame-Options for older browsers): a same-site frame of a signed-in screen was the way to
 * make an operator press Enter on the receiving screen.
 *
 * API answers (/api/v1, /api/trpc, the export, /api/health): `nosniff`, and `no-store`, since they
 * carry stock and users' data that no cache between here and the client should keep.
 */

/** The request header that carries a page's nonce to the root layout. */
export const NONCE_HEADER = "x-nonce";

export interface SecurityHeaders {
  /** Set on the response before anyone else writes it. */
  response: Record<string, string>;
  /** The policy Next must read on the request to stamp its scripts (HTML only). */
  requestCsp?: string;
  nonce?: string;
}

const COMMON = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "strict-origin-when-cross-origin",
  "X-Frame-Options": "DENY",
};

/** Paths that answer data, not pages: /api/docs is a page (Swagger UI) and gets the page's policy. */
export function isApiPath(pathname: string): boolean {
  return /^\/api\/(?!docs(?:\/|$))/.test(pathname);
}

export function contentSecurityPolicy(nonce: string, opts: { dev: boolean }): string {
  return [
    "default-src 'self'",
    // Development: React's debugging tools evaluate code, and the hot reloader talks over a WebSocket.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${opts.dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    // Barcodes and Swagger UI's icons are data: images; the CSV downloads and the camera use blob: URLs.
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self'${opts.dev ? " ws: wss:" : ""}`,
    "media-src 'self' blob:",
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

export function securityHeadersFor(url: string | undefined, opts: { dev: boolean }): SecurityHeaders {
  const pathname = (url ?? "/").split("?")[0]!;
  if (isApiPath(pathname)) return { response: { ...COMMON, "Cache-Control": "no-store" } };
  // Next's static files: immutable, cached, never HTML; the page's policy is not theirs to carry.
  if (pathname.startsWith("/_next/static/")) return { response: { ...COMMON } };
  const nonce = randomBytes(18).toString("base64");
  const csp = contentSecurityPolicy(nonce, opts);
  return { response: { ...COMMON, "Content-Security-Policy": csp }, requestCsp: csp, nonce };
}
