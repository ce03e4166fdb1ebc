import { expect } from "vitest";
import { test } from "../server/testing/test";
import { cli, setupCliBeforeAll, t } from "./cli-testing";

/** `stampante add|list` as an administrator at a terminal runs it (docs/api.md section 13). */

setupCliBeforeAll();

test("stampante add registers the printer (port 9100 by default) and logs its address; list shows it", async () => {
  const added = await cli("stampante", "add", "--nome", "Banchina 2", "--indirizzo", "192.168.1.50", "--dimensione", "100x150");
  expect(added).toMatchObject({ code: 0, stdout: "Stampante 1 'Banchina 2' aggiunta: 192.168.1.50:9100, etichette 100x150 mm.\n" });
  const { rows } = await t.pool.query("SELECT autore_tipo, azione, dettagli FROM registro_amministrativo");
  expect(rows).toEqual([
    { autore_tipo: "riga_di_comando", azione: "stampante.aggiunta", dettagli: "indirizzo 192.168.1.50:9100, 100x150 mm" },
  ]);
  const list = await cli("stampante", "list");
  expect(list.stdout).toMatch(/1\s+Banchina 2\s+192\.168\.1\.50:9100\s+100x150/);
});

test("refusals: a name taken (1), a bad address, size or missing option (2)", async () => {
  await cli("stampante", "add", "--nome", "Doppia", "--indirizzo", "10.0.0.9:9100");
  expect(await cli("stampante", "add", "--nome", "Doppia", "--indirizzo", "10.0.0.9:9100")).toMatchObject({
    code: 1,
    stderr: expect.stringContaining("Esiste già"),
  });
  expect((await cli("stampante", "add", "--nome", "X", "--indirizzo", "10.0.0.9:70000")).code).toBe(2);
  expect((await cli("stampante", "add", "--nome", "X", "--indirizzo", "10.0.0.9", "--dimensione", "a4")).code).toBe(2);
  expect(await cli("stampante", "add", "--nome", "X")).toMatchObject({ code: 2, stderr: expect.stringContaining("indicare --indirizzo") });
});

test("stampante update changes the address and size; the log has the old and the new address", async () => {
  const added = await cli("stampante", "add", "--nome", "PRN-TEST-CLI", "--indirizzo", "10.0.0.20");
  const id = /^Stampante (\d+) /.exec(added.stdout)![1]!;
  const updated = await cli("stampante", "update", id, "--indirizzo", "10.0.0.21:9101", "--dimensione", "50x25");
  expect(updated).toMatchObject({ code: 0, stdout: `Stampante ${id} 'PRN-TEST-CLI': 10.0.0.21:9101, etichette 50x25 mm.\n` });
  const { rows } = await t.pool.query("SELECT autore_tipo, azione, dettagli FROM registro_amministrativo ORDER BY id DESC LIMIT 1");
  expect(rows[0]).toEqual({
    autore_tipo: "riga_di_comando",
    azione: "stampante.modificata",
    dettagli: "indirizzo 10.0.0.20:9100 → 10.0.0.21:9101, dimensione 100x50 → 50x25 mm",
  });
});

test("stampante disable and enable, logged; list shows the state", async () => {
  const added = await cli("stampante", "add", "--nome", "PRN-TEST-CLI-OFF", "--indirizzo", "10.0.0.22");
  const id = /^Stampante (\d+) /.exec(added.stdout)![1]!;
  expect(await cli("stampante", "disable", id)).toMatchObject({ code: 0, stdout: expect.stringContaining("disattivata") });
  const azione = async () => (await t.pool.query("SELECT azione FROM registro_amministrativo ORDER BY id DESC LIMIT 1")).rows[0].azione;
  expect(await azione()).toBe("stampante.disattivata");
  expect((await cli("stampante", "list")).stdout).toMatch(
    new RegExp(`${id}\\s+PRN-TEST-CLI-OFF\\s+10\\.0\\.0\\.22:9100\\s+100x50\\s+disattivata`),
  );
  expect(await cli("stampante", "enable", id)).toMatchObject({ code: 0, stdout: expect.stringContaining("riceve di nuovo") });
  expect(await azione()).toBe("stampante.riattivata");
});

const logged = async () => (await t.pool.query("SELECT count(*)::int AS n FROM registro_amministrativo")).rows[0].n;

test("update refusals: nothing to change, a bad id (2), a bad address (2); nothing logged", async () => {
  const before = await logged();
  expect(await cli("stampante", "update", "1")).toMatchObject({ code: 2, stderr: expect.stringContaining("indicare che cosa cambiare") });
  expect(await cli("stampante", "update", "x", "--nome", "N")).toMatchObject({ code: 2, stderr: expect.stringContaining("numero intero") });
  expect((await cli("stampante", "update", "1", "--indirizzo", "h:0")).code).toBe(2);
  expect(await logged()).toBe(before);
});

test("disable refusals: no id (2), an unknown printer (1); nothing logged", async () => {
  const before = await logged();
  expect(await cli("stampante", "disable")).toMatchObject({ code: 2, stderr: expect.stringContaining("indicare l'id") });
  expect(await cli("stampante", "disable", "999999")).toMatchObject({ code: 1, stderr: expect.stringContaining("non esiste") });
  expect(await logged()).toBe(before);
});
