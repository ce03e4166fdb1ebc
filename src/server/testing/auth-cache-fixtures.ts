import { afterAll } from "vitest";
import { closePrisma, createPrisma, poolOf, type PrismaClient } from "../db/client";
import type { ListenerOptions } from "../db/listener";
import type { TestDb } from "./db";
import { test } from "./test";
import { createUser } from "../modules/users/users.service";
import type { Actor } from "../modules/auth/actor";
import { startAuthCache, type RunningAuthCache } from "../modules/auth/auth-cache";
import { createApiKey } from "../modules/auth/api-keys.service";
import { signIn } from "../modules/auth/sessions.service";

/**
 * What the authentication cache's test files share (auth-cache-instance, auth-cache-notifications, auth-cache-listener): two
 * "instances" in this process, each a client with its own pool, its own cache and its own LISTEN connection, on
 * the file's database, and the helpers that make keys and sessions. The bindings are filled by the hooks that
 * `startInstancesBeforeAll` registers in the file that calls it, and read live by the helpers.
 */

export const LIMITS = { perSecond: 50, burst: 200 };
export const ADMIN: Actor = { kind: "chiave", id: 0, nome: "test", permessi: ["lettura", "scrittura"] };
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export let t: TestDb;
export let a: Instance;
export let b: Instance;
const stops: (() => Promise<void>)[] = [];

export interface Instance {
  db: PrismaClient;
  running: RunningAuthCache;
  /** Connections taken from this instance's pool so far: every statement takes one. */
  statements(): number;
  /** Resolves with the moment (performance.now()) this instance applied a notification with that payload. */
  heard(payload: string, withinMs?: number): Promise<number>;
}

export async function instance(url = t.url, listener?: Omit<ListenerOptions, "applicationName">): Promise<Instance> {
  const db = createPrisma(url, 4);
  let taken = 0;
  poolOf(db)!.on("acquire", () => taken++);
  const waiting = new Set<{ payload: string; resolve: () => void }>();
  const running = startAuthCache(db, url, {
    ttlSeconds: 300,
    log: () => {},
    listener: { retryMs: { min: 200, max: 1_000 }, ...listener },
    onNotification(payload) {
      for (const w of waiting)
        if (w.payload === payload) {
          waiting.delete(w);
          w.resolve();
        }
    },
  });
  stops.push(async () => {
    await running.stop();
    await closePrisma(db);
  });
  await running.whenListening();
  return {
    db,
    running,
    statements: () => taken,
    heard(payload, withinMs = 5_000) {
      return new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`'${payload}' non ricevuto entro ${withinMs} ms`)), withinMs);
        waiting.add({
          payload,
          resolve: () => {
            clearTimeout(timer);
            resolve(performance.now());
          },
        });
      });
    },
  };
}

/** Registers the file's hooks: instances A and B before its tests, every instance stopped after them. */
export function startInstancesBeforeAll() {
  test.beforeAll(async ({ db }) => {
    t = db;
    a = await instance();
    b = await instance();
  });

  afterAll(async () => {
    for (const stop of stops.reverse()) await stop();
  });
}

let seq = 0;
/** A key with the default bucket, or one no test can empty (`unbounded`). */
export async function newKey(unbounded = false) {
  const bucket = unbounded ? { limiteAlSecondo: 1e6, raffica: 1e6 } : {};
  return createApiKey(t.prisma, { nome: `cache-${++seq}`, permessi: ["lettura", "scrittura"], ...bucket });
}

export async function newSession(ruolo: "operatore" | "responsabile" = "operatore") {
  const username = `cache-utente-${++seq}`;
  const user = await createUser(t.prisma, { username, password: "password-lunga-abbastanza", ruolo });
  const opened = await signIn(t.prisma, { username, password: "password-lunga-abbastanza", address: `cache-${seq}` });
  return { userId: user.id, token: opened.token };
}

export const refused = { codice: "non_autenticato" };

/** Polls `ok` until it holds (or fails the test after `ms`). */
export async function until(ok: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error("condizione non raggiunta in tempo");
    await sleep(5);
  }
}
