/**
 * PostgreSQL errors reach us wrapped differently depending on the path (Prisma raw query P2010 with
 * meta.code, driver adapter errors with cause.originalCode, plain pg errors with code). One reader.
 */
export function sqlState(e: unknown): string | undefined {
  const seen = new Set<unknown>();
  let cur: unknown = e;
  while (cur && typeof cur === "object" && !seen.has(cur)) {
    seen.add(cur);
    const o = cur as Record<string, unknown>;
    for (const v of [o.originalCode, o.code, (o.meta as Record<string, unknown> | undefined)?.code]) {
      if (typeof v === "string" && /^[0-9A-Z]{5}$/.test(v) && !v.startsWith("P")) return v;
    }
    const meta = o.meta as Record<string, unknown> | undefined;
    const driver = meta?.driverAdapterError as Record<string, unknown> | undefined;
    cur = o.cause ?? driver?.cause ?? driver;
  }
  return undefined;
}

export function constraintName(e: unknown): string | undefined {
  const seen = new Set<unknown>();
  let cur: unknown = e;
  while (cur && typeof cur === "object" && !seen.has(cur)) {
    seen.add(cur);
    const o = cur as Record<string, unknown>;
    if (typeof o.constraint === "string") return o.constraint;
    const meta = o.meta as Record<string, unknown> | undefined;
    const driver = meta?.driverAdapterError as Record<string, unknown> | undefined;
    cur = o.cause ?? driver?.cause ?? driver;
  }
  const msg = e instanceof Error ? e.message : "";
  return /constraint "([^"]+)"/.exec(msg)?.[1];
}

export const isSerializationFailure = (e: unknown) => {
  const s = sqlState(e);
  return s === "40001" || s === "40P01";
};

export const isUniqueViolation = (e: unknown) => sqlState(e) === "23505";
export const isCheckViolation = (e: unknown) => sqlState(e) === "23514";

/** The database cannot be reached (refused, shutting down, connection lost): the request gets 503. */
export function isUnavailable(e: unknown): boolean {
  const s = sqlState(e);
  if (s && (s.startsWith("08") || s === "57P01" || s === "57P02" || s === "57P03" || s === "53300")) return true;
  const seen = new Set<unknown>();
  let cur: unknown = e;
  while (cur && typeof cur === "object" && !seen.has(cur)) {
    seen.add(cur);
    const o = cur as Record<string, unknown>;
    // ENOENT: the server's Unix socket is gone (the embedded server stopped); a syscall says which.
    if (
      typeof o.code === "string" &&
      (["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND"].includes(o.code) ||
        (o.code === "ENOENT" && o.syscall === "connect"))
    )
      return true;
    const kind = o.kind;
    if (kind === "DatabaseNotReachable" || kind === "ConnectionClosed" || kind === "SocketTimeout") return true;
    const msg = typeof o.message === "string" ? o.message : "";
    if (
      /Connection terminated|timeout exceeded when trying to connect|connect (ECONNREFUSED|ENOENT)|Can't reach database|Client has encountered a connection error|Client was closed and is not queryable/i.test(
        msg,
      )
    )
      return true;
    const meta = o.meta as Record<string, unknown> | undefined;
    cur = o.cause ?? meta?.driverAdapterError;
  }
  return false;
}
