import { deleteDB, type IDBPDatabase, openDB } from "idb";
import type { UiUser } from "../session-context";

/**
 * What the handheld keeps in IndexedDB: who signed in on it last (the device's database, read by the
 * offline shell), and one database per user for the screens' own state (queued arrivals, the local copy
 * of expected rows). Per user, so that a shared handheld never shows or sends one user's data under
 * another's name; wiped at sign-out (sign-out.tsx).
 */

const DEVICE_DB = "banchina-palmare";
const DEVICE_STORE = "utente";
const CURRENT = "corrente";

function openDevice(): Promise<IDBPDatabase> {
  return openDB(DEVICE_DB, 1, {
    upgrade(db) {
      db.createObjectStore(DEVICE_STORE);
    },
  });
}

async function onDevice<T>(work: (db: IDBPDatabase) => Promise<T>): Promise<T> {
  const db = await openDevice();
  try {
    return await work(db);
  } finally {
    db.close();
  }
}

/** Only what the offline shell needs to pick the screens: never a token, never the session. */
export function rememberCurrentUser(user: UiUser): Promise<void> {
  const { id, username, ruolo } = user;
  return onDevice(async (db) => {
    await db.put(DEVICE_STORE, { id, username, ruolo } satisfies UiUser, CURRENT);
  });
}

export function readCurrentUser(): Promise<UiUser | undefined> {
  return onDevice((db) => db.get(DEVICE_STORE, CURRENT) as Promise<UiUser | undefined>);
}

function forgetCurrentUser(): Promise<void> {
  return onDevice((db) => db.delete(DEVICE_STORE, CURRENT));
}

/** The stores of a user's database. */
export type UserStore = "stato" | "coda" | "attesi" | "stoccaggio" | "colli";

/**
 * The schema's versions: each step runs once, in order, when a handheld opens an older database. A new
 * store or index is a new step at the end (and USER_DB_VERSION grows with it); existing steps never change.
 */
const STEPS: ((db: IDBPDatabase) => void)[] = [
  (db) => {
    for (const store of ["stato", "coda", "attesi"] satisfies UserStore[]) db.createObjectStore(store);
  },
  // The putaway screen's queue (screens/putaway).
  (db) => {
    db.createObjectStore("stoccaggio" satisfies UserStore);
  },
  // The receiving screen's queue of pallet receipts (screens/receiving/use-pallet-queue.ts).
  (db) => {
    db.createObjectStore("colli" satisfies UserStore);
  },
];
export const USER_DB_VERSION = STEPS.length;

export function userDbName(userId: number): string {
  return `banchina-utente-${userId}`;
}

/**
 * Values of each store, as the screen that uses them declares them. The stores added later are optional, so
 * a screen's shape written before them stays valid (it never reads them).
 */
export type UserDbShape = Record<Exclude<UserStore, "colli">, unknown> & Partial<Record<"colli", unknown>>;

/** A user's database as key → value stores (keys given by the caller; lists come back in key order). */
export interface UserDb<S extends UserDbShape = UserDbShape> {
  get<K extends UserStore>(store: K, key: IDBValidKey): Promise<S[K] | undefined>;
  put<K extends UserStore>(store: K, key: IDBValidKey, value: S[K]): Promise<void>;
  /** The values, by ascending key. */
  all<K extends UserStore>(store: K): Promise<S[K][]>;
  /** Keys and values, by ascending key. */
  entries<K extends UserStore>(store: K): Promise<{ key: IDBValidKey; value: S[K] }[]>;
  delete(store: UserStore, key: IDBValidKey): Promise<void>;
  clear(store: UserStore): Promise<void>;
  close(): void;
}

/**
 * Opens (creating or upgrading) the user's database. The connection gives way when someone needs the
 * database closed (sign-out deleting it, a newer version of the app upgrading it in another tab), and the
 * next call opens it again.
 *
 * @public the screens' offline state (the receiving queue) is kept here
 */
export async function openUserDb<S extends UserDbShape = UserDbShape>(userId: number): Promise<UserDb<S>> {
  let current: Promise<IDBPDatabase> | undefined;
  const open = () =>
    (current ??= openDB(userDbName(userId), USER_DB_VERSION, {
      upgrade(db, oldVersion) {
        for (const step of STEPS.slice(oldVersion)) step(db);
      },
      blocking() {
        void drop();
      },
      terminated() {
        current = undefined;
      },
    }));
  const drop = async () => {
    const was = current;
    current = undefined;
    (await was)?.close();
  };
  await open();
  return {
    get: async (store, key) => (await open()).get(store, key),
    put: async (store, key, value) => {
      await (await open()).put(store, value, key);
    },
    all: async (store) => (await open()).getAll(store),
    entries: async (store) => {
      const tx = (await open()).transaction(store);
      const out: { key: IDBValidKey; value: never }[] = [];
      for await (const cursor of tx.store) out.push({ key: cursor.key, value: cursor.value as never });
      await tx.done;
      return out;
    },
    delete: async (store, key) => (await open()).delete(store, key),
    clear: async (store) => (await open()).clear(store),
    close: () => void drop(),
  };
}

/** Sign-out: the user's database and the device's memory of who is signed in, gone. */
export async function wipeUserData(userId: number): Promise<void> {
  await deleteDB(userDbName(userId));
  await forgetCurrentUser();
}
