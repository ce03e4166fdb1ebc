import "fake-indexeddb/auto";
import { describe, expect, it } from "vitest";
import { openUserDb, readCurrentUser, rememberCurrentUser, USER_DB_VERSION, userDbName, wipeUserData } from "./local-db";

/** The names of the databases the origin holds. */
async function databases(): Promise<string[]> {
  return (await indexedDB.databases()).map((d) => d.name ?? "");
}

describe("the handheld's IndexedDB", () => {
  it("keeps a user's screen state by key, lists it in key order, and forgets what is deleted", async () => {
    const db = await openUserDb<{ stato: { ddt: string }; coda: { quantita: number }; attesi: unknown; stoccaggio: unknown }>(7);
    await db.put("coda", 2, { quantita: 20 });
    await db.put("coda", 1, { quantita: 10 });
    await db.put("stato", "ricevimento", { ddt: "DDT-1" });
    expect(await db.get("stato", "ricevimento")).toEqual({ ddt: "DDT-1" });
    expect(await db.all("coda")).toEqual([{ quantita: 10 }, { quantita: 20 }]);
    expect(await db.entries("coda")).toEqual([
      { key: 1, value: { quantita: 10 } },
      { key: 2, value: { quantita: 20 } },
    ]);
    await db.delete("coda", 1);
    expect(await db.all("coda")).toEqual([{ quantita: 20 }]);
    await db.clear("coda");
    expect(await db.all("coda")).toEqual([]);
    expect(await db.get("attesi", "nessuna")).toBeUndefined();
    db.close();
  });

  it("keeps each user apart", async () => {
    const a = await openUserDb(1);
    const b = await openUserDb(2);
    await a.put("coda", 1, "di A");
    expect(await b.get("coda", 1)).toBeUndefined();
    a.close();
    b.close();
  });

  it("wipes a user at sign-out even while a screen holds the database open, and forgets the current user", async () => {
    await rememberCurrentUser({ id: 3, username: "mario", ruolo: "operatore" });
    expect(await readCurrentUser()).toEqual({ id: 3, username: "mario", ruolo: "operatore" });
    const open = await openUserDb(3);
    await open.put("coda", 1, { quantita: 5 });
    expect(await databases()).toContain(userDbName(3));

    await wipeUserData(3);
    expect(await databases()).not.toContain(userDbName(3));
    expect(await readCurrentUser()).toBeUndefined();
    // Stores: stato, coda, attesi; stoccaggio (putaway); colli (pallet receipts queued offline).
    expect(USER_DB_VERSION).toBe(3);
  });

  it("stores no more of the user than id, name and role", async () => {
    await rememberCurrentUser({ id: 4, username: "anna", ruolo: "responsabile", csrf: "segreto" } as never);
    expect(await readCurrentUser()).toEqual({ id: 4, username: "anna", ruolo: "responsabile" });
  });
});
