import { randomUUID } from "node:crypto";
import { getConfig, type Config } from "../config";
import { getDb, type PrismaClient } from "../db/client";
import type { HeaderReader } from "../lib/headers";
import type { Actor } from "../modules/auth/actor";
import type { ResolvedSession } from "../modules/auth/sessions.types";

export interface ResponseMeta {
  status?: number;
  headers: Record<string, string>;
  /** A body that is not JSON (a label's PDF or ZPL): the REST core writes these bytes instead of the procedure's output. */
  binary?: Uint8Array;
}

export interface Context {
  db: PrismaClient;
  config: Config;
  requestId: string;
  headers: HeaderReader;
  channel: "rest" | "trpc" | "interno";
  /** Resolved by the auth middleware, or given directly (tests, the CLI). */
  actor?: Actor;
  /** The UI session the actor came from (tRPC channel, cookie), once the auth middleware has run. */
  session?: ResolvedSession;
  /** Set by procedures whose success status is not 200 (a single arrival answers 201), and by sign-in (Set-Cookie). */
  response: ResponseMeta;
}

export function createContextInner(opts: {
  db?: PrismaClient;
  config?: Config;
  headers?: HeaderReader;
  channel?: Context["channel"];
  requestId?: string;
  actor?: Actor;
}): Context {
  return {
    db: opts.db ?? getDb(),
    config: opts.config ?? getConfig(),
    requestId: opts.requestId ?? randomUUID(),
    headers: opts.headers ?? new Headers(),
    channel: opts.channel ?? "interno",
    actor: opts.actor,
    response: { headers: {} },
  };
}
