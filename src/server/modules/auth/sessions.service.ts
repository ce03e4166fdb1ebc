import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { ModelDb } from "../../db/client";
import { first } from "../../db/sql";
import { DomainError } from "../../lib/errors";
import type { HeaderReader } from "../../lib/headers";
import type { Role } from "./actor";
import { authCacheOf } from "./auth-cache";
import * as q from "./auth.queries";
import { verifyPassword } from "./passwords";
import { refundToken, resetBucket, takeToken, type Bucket } from "./rate-limit";
import type { ResolvedSession } from "./sessions.types";

/**
 * Operator UI sessions, kept on the server: the browser holds a random token in an httpOnly,
 * SameSite=Strict cookie; the table holds only its SHA-256 (a stolen database dump opens nothing),
 * the user, the CSRF token the UI must echo on every mutation, and the expiry.
 */

export const SESSION_COOKIE = "banchina_sessione";
/** A session ends after this long without use … */
export const SESSION_IDLE_HOURS = 12;
/** … and in any case this long after sign-in. */
export const SESSION_MAX_DAYS = 7;
/** Last use is written at most this often, so reads do not turn every request into a write. */
const TOUCH_EVERY_SECONDS = 60;

/**
 * Sign-in attempts: every attempt spends a token from the bucket of its address and from the bucket
 * of its username *at that address*. Guessing from one address is slowed to one try every 30 s per
 * username after 5, and one every 5 s in all after 20. The username's limit is per address on purpose:
 * one shared per username let anyone lock a user out (one wrong attempt every 30 s kept the bucket
 * empty, and the right password from the user's own terminal was refused too). A successful sign-in
 * refills its username's bucket at that address and gives the address its token back, so a shift of
 * operators signing in behind one address never locks each other out.
 */
export const SIGN_IN_LIMITS: { username: Bucket; address: Bucket } = {
  username: { burst: 5, perSecond: 1 / 30 },
  address: { burst: 20, perSecond: 1 / 5 },
};

export const USERNAME_PATTERN = /^[a-z0-9][a-z0-9._-]{2,63}$/;

/** Usernames are compared in lower case: handheld keyboards capitalise the first letter on their own. */
export function normaliseUsername(username: string): string {
  return username.trim().toLowerCase();
}

export function hashSessionToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

export interface SessionUser {
  id: number;
  username: string;
  ruolo: Role;
}

export interface OpenedSession {
  token: string;
  csrf: string;
  utente: SessionUser;
  scadeIl: Date;
}

function waitText(seconds: number): string {
  if (seconds < 60) return `${seconds} ${seconds === 1 ? "secondo" : "secondi"}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} ${minutes === 1 ? "minuto" : "minuti"}`;
}

function tooManyAttempts(waitSeconds: number): DomainError {
  return new DomainError("troppe_richieste", `Troppi tentativi di accesso. Riprovare tra ${waitText(waitSeconds)}.`, {
    retryAfterSeconds: waitSeconds,
  });
}

export async function signIn(
  db: ModelDb,
  input: { username: string; password: string; address: string },
  limits: { username: Bucket; address: Bucket } = SIGN_IN_LIMITS,
): Promise<OpenedSession> {
  const username = normaliseUsername(input.username);
  const userKey = `accesso:utente:${username}:da:${input.address}`;
  const addressKey = `accesso:indirizzo:${input.address}`;
  // Address first: a flood of attempts on many usernames from one address stops here.
  const byAddress = await takeToken(db, addressKey, limits.address);
  if (!byAddress.ok) throw tooManyAttempts(byAddress.waitSeconds);
  const byUser = await takeToken(db, userKey, limits.username);
  if (!byUser.ok) throw tooManyAttempts(byUser.waitSeconds);

  const user = await db.utente.findUnique({
    where: { username },
    select: { id: true, username: true, ruolo: true, attivo: true, password_hash: true },
  });
  // Verified even when the user is unknown or inactive: the answer takes the same time either way.
  const ok = await verifyPassword(user?.password_hash ?? null, input.password);
  if (!user || !ok || !user.attivo) {
    throw new DomainError("non_autenticato", "Nome utente o password non corretti.");
  }
  await resetBucket(db, userKey);
  await refundToken(db, addressKey, limits.address);

  const token = randomBytes(32).toString("base64url");
  const csrf = randomBytes(32).toString("base64url");
  const now = Date.now();
  const scadeIl = new Date(Math.min(now + SESSION_IDLE_HOURS * 3_600_000, now + SESSION_MAX_DAYS * 86_400_000));
  await db.sessione.create({ data: { id: hashSessionToken(token), utente_id: user.id, csrf, scade_il: scadeIl } });
  return { token, csrf, utente: { id: user.id, username: user.username, ruolo: user.ruolo as Role }, scadeIl };
}

/**
 * The session a cookie token opens, or null (unknown, expired, or its user deactivated). From the
 * instance's cache when it has one that listens (auth-cache.ts: a sign-out, a deactivation or a change
 * of role reaches every instance's cache through PostgreSQL at commit; the expiry is checked at every
 * hit), else from the database, which also slides the expiry (at most once a minute). A session served
 * from the cache slides when it is read again, at the latest a cache lifetime later.
 */
export async function resolveSession(db: ModelDb, token: string): Promise<ResolvedSession | null> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return null;
  const id = hashSessionToken(token);
  const cache = authCacheOf(db);
  if (cache?.active) await cache.caughtUp();
  const cached = cache?.session(id);
  if (cached) return cached;
  const ticket = cache?.ticket();
  const row = await first(
    db,
    q.touchSession(id, { maxDays: SESSION_MAX_DAYS, idleHours: SESSION_IDLE_HOURS, touchEverySeconds: TOUCH_EVERY_SECONDS }),
  );
  if (!row) return null;
  const session: ResolvedSession = {
    id,
    csrf: row.csrf,
    scadeIl: row.scade_il,
    actor: { kind: "utente", id: row.utente_id, username: row.username, ruolo: row.ruolo },
  };
  cache?.putSession(ticket, session, row.resta_ms);
  return session;
}

/**
 * The session a request's cookie opens, or the refusal of every entry that signs in by session (the
 * UI's tRPC channel, the availability export): one path, so they cannot drift apart.
 */
export async function authenticateSession(db: ModelDb, cookieHeader: string | null): Promise<ResolvedSession> {
  const token = readCookie(cookieHeader, SESSION_COOKIE);
  const session = token ? await resolveSession(db, token) : null;
  if (!session) throw new DomainError("non_autenticato", "Sessione assente o scaduta: accedere di nuovo.");
  return session;
}

export async function signOut(db: ModelDb, token: string): Promise<void> {
  await db.sessione.deleteMany({ where: { id: hashSessionToken(token) } });
}

export async function purgeExpiredSessions(db: ModelDb): Promise<number> {
  const res = await db.sessione.deleteMany({ where: { scade_il: { lt: new Date() } } });
  return res.count;
}

/** Constant-time comparison of the CSRF token the client echoed with the session's. */
export function csrfMatches(expected: string, given: string | null): boolean {
  if (!given) return false;
  const a = Buffer.from(expected, "utf8");
  const b = Buffer.from(given, "utf8");
  return a.length === b.length && timingSafeEqual(a, b);
}

// ---------------------------------------------------------------- cookies and request facts

export function readCookie(cookieHeader: string | null, name: string): string | undefined {
  if (!cookieHeader) return undefined;
  for (const part of cookieHeader.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    try {
      return decodeURIComponent(value);
    } catch {
      // A malformed escape is a wrong token, not a server error.
      return value;
    }
  }
  return undefined;
}

/**
 * Secure when the browser reached us over https, directly or through a proxy that says so. A
 * forwarded header is anyone's to write: it counts only behind a proxy we were told to trust.
 */
export function isSecureRequest(headers: HeaderReader, opts: { trustProxy: boolean; url?: string }): boolean {
  const proto = opts.trustProxy ? headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase() : undefined;
  return proto === "https" || (opts.url?.startsWith("https:") ?? false);
}

/**
 * A sign-in form posted from another site must not sign the browser into our service (login CSRF):
 * browsers send Origin on every POST, and it must name the host the browser asked for. That host is
 * `Host`, or the proxy's `X-Forwarded-Host` only with TRUST_PROXY=true: without a proxy in front,
 * anyone can send that header, and trusting it would let a forged Origin pass.
 */
export function assertSameOrigin(headers: HeaderReader, opts: { trustProxy: boolean }): void {
  const origin = headers.get("origin");
  if (origin === null) return;
  const forwarded = opts.trustProxy ? headers.get("x-forwarded-host")?.split(",")[0]?.trim() : undefined;
  const host = forwarded || headers.get("host");
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    originHost = "";
  }
  if (!host || originHost !== host.toLowerCase()) {
    throw new DomainError("permesso_negato", "Accesso rifiutato: la richiesta non proviene da questa applicazione.");
  }
}

export function sessionCookie(token: string, opts: { secure: boolean; expires: Date }): string {
  return [
    `${SESSION_COOKIE}=${token}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Strict",
    `Expires=${opts.expires.toUTCString()}`,
    ...(opts.secure ? ["Secure"] : []),
  ].join("; ");
}

export function clearedSessionCookie(opts: { secure: boolean }): string {
  return [`${SESSION_COOKIE}=`, "Path=/", "HttpOnly", "SameSite=Strict", "Max-Age=0", ...(opts.secure ? ["Secure"] : [])].join("; ");
}

/** Set by the service entry from the TCP peer (or the proxy's X-Forwarded-For when trusted); never by clients. */
export const CLIENT_ADDRESS_HEADER = "x-banchina-indirizzo";

export function clientAddress(headers: HeaderReader): string {
  return headers.get(CLIENT_ADDRESS_HEADER) ?? "sconosciuto";
}
