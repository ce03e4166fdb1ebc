import { describe, expect } from "vitest";
import { inPrismaTransaction } from "../../db/transaction";
import { toDomainError } from "../../trpc/errors";
import type { TestDb } from "../../testing/db";
import { caller } from "../../testing/fixtures";
import { test } from "../../testing/test";
import type { Actor } from "../auth/actor";
import { signIn } from "../auth/sessions.service";
import { createUser, listUsers, setUserPassword, updateUserInTransaction as updateUser } from "./users.service";

let t: TestDb;
let admin: Actor & { kind: "utente" };

test.beforeAll(async ({ db }) => {
  t = db;
  const a = await createUser(t.prisma, { username: "capo", password: "password-capo", ruolo: "amministratore" });
  admin = { kind: "utente", id: a.id, username: a.username, ruolo: "amministratore" };
});

const codeOf = async (p: Promise<unknown>) =>
  p.then(
    () => "ok",
    (e) => toDomainError(e, { isQuery: false })?.codice ?? String(e),
  );
let addr = 0;
const login = (username: string, password: string) => signIn(t.prisma, { username, password, address: `192.0.2.${++addr}` });

describe("users", () => {
  test("the password is stored as an argon2id hash, never in clear, and never listed", async () => {
    const u = await createUser(t.prisma, { username: "anna", password: "segreto-di-anna", ruolo: "operatore" });
    const { rows } = await t.pool.query("SELECT password_hash FROM utenti WHERE id = $1", [u.id]);
    expect(rows[0].password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(rows[0].password_hash).not.toContain("segreto-di-anna");
    const listed = await listUsers(t.prisma);
    expect(listed.find((x) => x.username === "anna")).toEqual({
      id: u.id,
      username: "anna",
      ruolo: "operatore",
      attivo: true,
      creato_il: expect.any(String),
    });
    expect(JSON.stringify(listed)).not.toMatch(/argon2/);
    expect((await login("anna", "segreto-di-anna")).utente.username).toBe("anna");
  });

  test("usernames are lower case and unique; a weak password or a bad name is refused", async () => {
    const ui = caller(t, admin, "trpc");
    expect(await ui.users.create({ username: " Bruno.R ", password: "password-bruno", ruolo: "responsabile" })).toMatchObject({
      username: "bruno.r",
    });
    expect(await codeOf(ui.users.create({ username: "BRUNO.R", password: "password-altra", ruolo: "operatore" }))).toBe("utente_esistente");
    expect(await codeOf(ui.users.create({ username: "x", password: "password-lunga", ruolo: "operatore" }))).toBe("richiesta_non_valida");
    expect(await codeOf(ui.users.create({ username: "corta", password: "breve", ruolo: "operatore" }))).toBe("richiesta_non_valida");
    expect(await codeOf(ui.users.create({ username: "ruolo", password: "password-lunga", ruolo: "capo" as never }))).toBe(
      "richiesta_non_valida",
    );
  });

  const refusal = async (p: Promise<unknown>) =>
    p.then(
      () => "accettata",
      (e) => {
        const d = toDomainError(e, { isQuery: false });
        return `${d?.codice}: ${d?.message}`;
      },
    );

  test.each([
    ["12345678", "magazzino1", /almeno 12 caratteri/],
    ["corta-11car", "magazzino2", /almeno 12 caratteri/],
    ["amministratore", "amministratore", /non può essere il nome utente/],
    ["Amministratore1", "amministratore", /non può essere il nome utente/],
    ["erotartsinimma", "amministratore", /non può essere il nome utente/],
    ["magazziniere.tre", "magazziniere.tre", /non può essere il nome utente/],
    ["123456789012", "magazzino3", /tra le più usate/],
    ["password1234", "magazzino4", /tra le più usate/],
    ["Password1234", "magazzino5", /tra le più usate/],
    ["qwertyuiop123", "magazzino6", /tra le più usate/],
    ["1q2w3e4r5t6y", "magazzino7", /tra le più usate/],
    ["aaaaaaaaaaaaaaaa", "magazzino8", /un solo carattere ripetuto/],
  ])("the password %j for %s is refused, saying why", async (password, username, why) => {
    const ui = caller(t, admin, "trpc");
    const answer = await refusal(ui.users.create({ username, password, ruolo: "operatore" }));
    expect(answer).toMatch(/^richiesta_non_valida: /);
    expect(answer).toMatch(why);
  });

  test("a reset password follows the same policy, the user's own name included", async () => {
    const ui = caller(t, admin, "trpc");
    const u = await ui.users.create({ username: "gianni.b", password: "scaffale verde in fondo", ruolo: "operatore" });
    expect(await refusal(ui.users.setPassword({ id: u.id, password: "gianni.b2026" }))).toMatch(/non può essere il nome utente/);
    expect(await refusal(ui.users.setPassword({ id: u.id, password: "123456789012" }))).toMatch(/tra le più usate/);
    expect(await refusal(ui.users.setPassword({ id: u.id, password: "breve" }))).toMatch(/^richiesta_non_valida: .*12 caratteri/);
    expect(await refusal(setUserPassword(t.prisma, { id: u.id, password: "password" }))).toMatch(/almeno 12 caratteri/);
    expect(await refusal(ui.users.setPassword({ id: u.id, password: "bancale rosso numero sette" }))).toBe("accettata");
    expect(await codeOf(login("gianni.b", "bancale rosso numero sette"))).toBe("ok");
  });

  test("deactivating a user or resetting their password ends their sessions", async () => {
    await createUser(t.prisma, { username: "carla", password: "password-carla", ruolo: "operatore" });
    const s1 = await login("carla", "password-carla");
    const carla = (await listUsers(t.prisma)).find((u) => u.username === "carla")!;
    await setUserPassword(t.prisma, { id: carla.id, password: "nuova-password-carla" });
    expect((await t.pool.query("SELECT count(*)::int AS n FROM sessioni WHERE utente_id = $1", [carla.id])).rows[0].n).toBe(0);
    expect(await codeOf(login("carla", "password-carla"))).toBe("non_autenticato");
    await login("carla", "nuova-password-carla");
    expect(s1.token).toBeTruthy();
    await inPrismaTransaction(t.prisma, (tx) => updateUser(tx, admin, { id: carla.id, attivo: false }));
    expect((await t.pool.query("SELECT count(*)::int AS n FROM sessioni WHERE utente_id = $1", [carla.id])).rows[0].n).toBe(0);
    expect(await codeOf(login("carla", "nuova-password-carla"))).toBe("non_autenticato");
  });

  test("the last active administrator stays one; with a second, the first can step down", async () => {
    const ui = caller(t, admin, "trpc");
    expect(await codeOf(ui.users.update({ id: admin.id, ruolo: "operatore" }))).toBe("ultimo_amministratore");
    expect(await codeOf(ui.users.update({ id: admin.id, attivo: false }))).toBe("richiesta_non_valida");
    const second = await ui.users.create({ username: "vice", password: "password-vice", ruolo: "amministratore" });
    const vice: Actor = { kind: "utente", id: second.id, username: "vice", ruolo: "amministratore" };
    // Two administrators demoting each other at once: one of them must remain.
    const results = await Promise.all([
      codeOf(caller(t, admin, "trpc").users.update({ id: second.id, ruolo: "operatore" })),
      codeOf(caller(t, vice, "trpc").users.update({ id: admin.id, ruolo: "operatore" })),
    ]);
    expect(results.sort()).toEqual(["ok", "ultimo_amministratore"]);
    const { rows } = await t.pool.query("SELECT count(*)::int AS n FROM utenti WHERE ruolo = 'amministratore' AND attivo");
    expect(rows[0].n).toBe(1);
  });
});
