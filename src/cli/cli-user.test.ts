import { describe, expect } from "vitest";
import { test } from "../server/testing/test";
import { cli, cliWithInput, setupCliBeforeAll, t } from "./cli-testing";

setupCliBeforeAll();

describe("user", () => {
  const signIn = (username: string, password: string) =>
    import("../server/modules/auth/sessions.service").then((m) =>
      m.signIn(t.prisma, { username, password, address: `cli-${Math.random()}` }),
    );

  test("create with --password: the user signs in with that role", async () => {
    const r = await cli("user", "create", "--username", "Capo", "--role", "amministratore", "--password", "password-del-capo");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Utente 'capo' creato \(id \d+, ruolo amministratore\)/);
    expect((await signIn("capo", "password-del-capo")).utente).toMatchObject({ username: "capo", ruolo: "amministratore" });
  });

  test("create with the password on stdin (first line); it never reaches the output", async () => {
    const r = await cliWithInput("segreto-da-stdin\naltro\n", "user", "create", "--username", "banco1", "--role", "operatore");
    expect(r.code).toBe(0);
    expect(r.stdout + r.stderr).not.toContain("segreto-da-stdin");
    expect((await signIn("banco1", "segreto-da-stdin")).utente.ruolo).toBe("operatore");
    const { rows } = await t.pool.query("SELECT password_hash FROM utenti WHERE username = 'banco1'");
    expect(rows[0].password_hash).toMatch(/^\$argon2id\$/);
  });

  test("list shows users and roles, never passwords nor hashes", async () => {
    const r = await cli("user", "list");
    expect(r.code).toBe(0);
    const [header, ...rows] = r.stdout.trim().split("\n");
    expect(header!.split(/\s{2,}/)).toEqual(["id", "username", "ruolo", "attivo", "creato"]);
    expect(rows.map((l) => l.split(/\s{2,}/).slice(1, 4))).toEqual([
      ["banco1", "operatore", "sì"],
      ["capo", "amministratore", "sì"],
    ]);
    expect(r.stdout).not.toMatch(/argon2|password/);
  });

  test("refusals: duplicate name (1), weak or missing password (1), unknown role or bad name (2)", async () => {
    const dup = await cli("user", "create", "--username", "capo", "--role", "operatore", "--password", "un-altra-password");
    expect(dup.code).toBe(1);
    expect(dup.stderr).toMatch(/Esiste già un utente 'capo'/);
    const weak = await cli("user", "create", "--username", "debole", "--role", "operatore", "--password", "corta");
    expect(weak.code).toBe(1);
    expect(weak.stderr).toMatch(/almeno 12 caratteri/);
    const common = await cli("user", "create", "--username", "debole", "--role", "operatore", "--password", "password1234");
    expect(common.code).toBe(1);
    expect(common.stderr).toMatch(/Password non accettata: la password è tra le più usate/);
    const ownName = await cli("user", "create", "--username", "magazziniere", "--role", "operatore", "--password", "Magazziniere!");
    expect(ownName.code).toBe(1);
    expect(ownName.stderr).toMatch(/non può essere il nome utente/);
    const none = await cliWithInput("", "user", "create", "--username", "senza", "--role", "operatore");
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/Password mancante/);
    const role = await cli("user", "create", "--username", "mario", "--role", "capo", "--password", "password-lunga");
    expect(role.code).toBe(2);
    expect(role.stderr).toMatch(/--role operatore\|responsabile\|amministratore \(ricevuto 'capo'\)/);
    const name = await cli("user", "create", "--username", "a b", "--role", "operatore", "--password", "password-lunga");
    expect(name.code).toBe(2);
    expect(name.stderr).toMatch(/nome utente 'a b' non valido/);
    const { rows } = await t.pool.query("SELECT count(*)::int AS n FROM utenti");
    expect(rows[0].n).toBe(2);
  });
});
