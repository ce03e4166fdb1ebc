import { expect } from "vitest";
import { toDomainError } from "../../trpc/errors";
import type { TestDb } from "../../testing/db";
import { caller } from "../../testing/fixtures";
import { test } from "../../testing/test";
import type { Actor } from "../auth/actor";
import { createApiKey, revokeApiKey } from "../auth/api-keys.service";
import { createUser } from "../users/users.service";

let t: TestDb;
let admin: Actor & { kind: "utente" };

test.beforeAll(async ({ db }) => {
  t = db;
  const a = await createUser(t.prisma, { username: "capo-registro", password: "cavallo-batteria-graffetta", ruolo: "amministratore" });
  admin = { kind: "utente", id: a.id, username: a.username, ruolo: "amministratore" };
});

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => "ok",
    (e) => toDomainError(e, { isQuery: false })?.codice ?? String(e),
  );

test("administrative actions are logged with who, when, what and on what; newest first, paged", async () => {
  const ui = caller(t, admin, "trpc");
  const u = await ui.users.create({ username: "nuovo-registro", password: "cavallo-batteria-graffetta", ruolo: "operatore" });
  await ui.users.update({ id: u.id, ruolo: "responsabile" });
  await ui.users.setPassword({ id: u.id, password: "altra-parola-lunga-sicura" });
  await ui.users.update({ id: u.id, attivo: false });
  const k = await ui.apiKeys.create({ nome: "erp-registro", permessi: ["lettura"] });
  await ui.apiKeys.revoke({ id: k.id });
  const cli = await createApiKey(t.prisma, { nome: "cli-registro", permessi: ["scrittura"] }, "riga_di_comando");
  await revokeApiKey(t.prisma, cli.prefisso, "riga_di_comando");

  const all = await ui.audit.list({ limite: 200 });
  const mine = all.voci.filter((v) => v.oggetto.nome.endsWith("-registro"));
  expect(mine.map((v) => [v.autore.tipo, v.autore.nome, v.azione, v.oggetto.tipo, v.oggetto.nome])).toEqual([
    ["riga_di_comando", "riga di comando", "chiave.revocata", "chiave", "cli-registro"],
    ["riga_di_comando", "riga di comando", "chiave.creata", "chiave", "cli-registro"],
    ["utente", "capo-registro", "chiave.revocata", "chiave", "erp-registro"],
    ["utente", "capo-registro", "chiave.creata", "chiave", "erp-registro"],
    ["utente", "capo-registro", "utente.disattivato", "utente", "nuovo-registro"],
    ["utente", "capo-registro", "utente.password", "utente", "nuovo-registro"],
    ["utente", "capo-registro", "utente.ruolo", "utente", "nuovo-registro"],
    ["utente", "capo-registro", "utente.creato", "utente", "nuovo-registro"],
  ]);
  expect(mine.find((v) => v.azione === "utente.ruolo")!.dettagli).toBe("da operatore a responsabile");
  expect(mine[2]!.autore.id).toBe(admin.id);
  expect(mine[0]!.creato_il).toMatch(/^\d{4}-\d\d-\d\dT/);
  // No password or key in clear anywhere in the log.
  expect(JSON.stringify(all)).not.toContain("cavallo");
  expect(JSON.stringify(all)).not.toContain(k.chiave);

  const first = await ui.audit.list({ limite: 3 });
  expect(first.voci.map((v) => v.id)).toEqual(all.voci.slice(0, 3).map((v) => v.id));
  const next = await ui.audit.list({ limite: 3, prima: first.prima! });
  expect(next.voci.map((v) => v.id)).toEqual(all.voci.slice(3, 6).map((v) => v.id));
});

test("a cursor beyond PostgreSQL's integer, and a key id beyond it to revoke, are refused as bad input, not a 500", async () => {
  const ui = caller(t, admin, "trpc");
  expect(await codeOf(ui.audit.list({ prima: 2_147_483_648 }))).toBe("richiesta_non_valida");
  expect(await codeOf(ui.apiKeys.revoke({ id: 2_147_483_648 }))).toBe("richiesta_non_valida");
  // The largest id is a question the database answers: the newest entry below it, a key that does not exist.
  expect((await ui.audit.list({ prima: 2_147_483_647, limite: 1 })).voci).toHaveLength(1);
  expect(await codeOf(ui.apiKeys.revoke({ id: 2_147_483_647 }))).toBe("non_trovato");
});

test("the log is append-only: UPDATE, DELETE and TRUNCATE are refused", async () => {
  await caller(t, admin, "trpc").apiKeys.create({ nome: "x-registro", permessi: ["lettura"] });
  await expect(t.pool.query("UPDATE registro_amministrativo SET autore_nome = 'altro'")).rejects.toThrow(/sola aggiunta/);
  await expect(t.pool.query("DELETE FROM registro_amministrativo")).rejects.toThrow(/sola aggiunta/);
  await expect(t.pool.query("TRUNCATE registro_amministrativo")).rejects.toThrow(/sola aggiunta/);
});

test("only an administrator reads the log", async () => {
  for (const ruolo of ["operatore", "responsabile"] as const) {
    const u = await createUser(t.prisma, { username: `${ruolo}-lettore-registro`, password: "cavallo-batteria-graffetta", ruolo });
    expect(await codeOf(caller(t, { kind: "utente", id: u.id, username: u.username, ruolo }, "trpc").audit.list())).toBe("permesso_negato");
  }
});
