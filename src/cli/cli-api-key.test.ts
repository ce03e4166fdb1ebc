import { describe, expect } from "vitest";
import { DomainError } from "../server/lib/errors";
import { test } from "../server/testing/test";
import { authenticate, cli, cliUnderTsx, setupCliBeforeAll, t } from "./cli-testing";

setupCliBeforeAll();

describe("api-key", () => {
  let key: string;
  let prefix: string;

  test("create prints the key alone on stdout, and the key authenticates", async () => {
    const r = await cli(
      "api-key",
      "create",
      "--name",
      "gestionale",
      "--scopes",
      "lettura,scrittura",
      "--limite-al-secondo",
      "20",
      "--raffica",
      "40",
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^bnc_[0-9a-f]{8}_[A-Za-z0-9_-]+\n$/);
    expect(r.stderr).toMatch(/mostrata solo ora/);
    key = r.stdout.trim();
    prefix = key.split("_")[1]!;
    expect(await authenticate(key)).toMatchObject({ kind: "chiave", nome: "gestionale", permessi: ["lettura", "scrittura"] });
    const row = await t.prisma.chiaveApi.findFirstOrThrow({ where: { prefisso: prefix } });
    expect(row).toMatchObject({ limite_al_secondo: 20, raffica: 40 });
  });

  test("list shows the keys but never the key nor its hash", async () => {
    const r = await cli("api-key", "list");
    expect(r.code).toBe(0);
    const [header, ...rows] = r.stdout.trim().split("\n");
    expect(header!.split(/\s{2,}/)).toEqual(["id", "nome", "prefisso", "permessi", "creata", "revocata", "ultimo uso"]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(
      new RegExp(`^\\d+\\s+gestionale\\s+${prefix}\\s+lettura,scrittura\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d\\s+-\\s+\\d{4}`),
    );
    const { hash } = await t.prisma.chiaveApi.findFirstOrThrow({ where: { prefisso: prefix } });
    for (const secret of [key, key.split("_").slice(2).join("_"), hash]) {
      expect(r.stdout + r.stderr).not.toContain(secret);
    }
  });

  test("revoke makes authentication fail; revoking again is a failure", async () => {
    const r = await cli("api-key", "revoke", prefix);
    expect(r.code).toBe(0);
    await expect(authenticate(key)).rejects.toSatisfy((e) => e instanceof DomainError && e.codice === "non_autenticato");
    const again = await cli("api-key", "revoke", prefix);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(`Nessuna chiave attiva con id o prefisso '${prefix}'`);
  });

  test("the webhook scope is given only when named: lettura,webhook and scrittura,webhook; scrittura alone has none", async () => {
    for (const [scopes, expected] of [
      ["lettura,webhook", ["lettura", "webhook"]],
      ["scrittura,webhook", ["lettura", "scrittura", "webhook"]],
    ] as const) {
      const r = await cli("api-key", "create", "--name", `hook-${scopes}`, "--scopes", scopes);
      expect(r.code, r.stderr).toBe(0);
      expect(await authenticate(r.stdout.trim())).toMatchObject({ permessi: expected });
      await cli("api-key", "revoke", r.stdout.trim().split("_")[1]!);
    }
  });

  test("an unknown scope or a missing name is a usage error", async () => {
    const scope = await cli("api-key", "create", "--name", "x", "--scopes", "lettura,amministrazione");
    expect(scope.code).toBe(2);
    expect(scope.stderr).toMatch(/permessi sconosciuti: amministrazione/);
    const name = await cli("api-key", "create", "--scopes", "lettura", "--nome", "x");
    expect(name.code).toBe(2);
    expect(name.stderr).toMatch(/opzione sconosciuta: --nome/);
    expect(name.stdout).toBe("");
  });

  test("`npm run cli`'s own command (tsx) does what the compiled module the other tests run does", async () => {
    const created = await cliUnderTsx("api-key", "create", "--name", "da-tsx", "--scopes", "lettura");
    expect(created.code, created.stderr).toBe(0);
    expect(await authenticate(created.stdout.trim())).toMatchObject({ kind: "chiave", nome: "da-tsx", permessi: ["lettura"] });
    // The same answer, word for word, to a wrong usage (the usage text and exit code 2).
    const [underTsx, compiled] = await Promise.all([
      cliUnderTsx("api-key", "create", "--scopes", "lettura"),
      cli("api-key", "create", "--scopes", "lettura"),
    ]);
    expect(underTsx.code).toBe(2);
    expect(underTsx).toEqual(compiled);
  });
});
