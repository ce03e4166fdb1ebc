import { describe, expect } from "vitest";
import { test } from "../server/testing/test";
import { cli, cliWithEnv, setupCliBeforeAll, t } from "./cli-testing";

setupCliBeforeAll();

describe("webhook", () => {
  const cliPublic = (...args: string[]) => cliWithEnv({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: "false" }, ...args);
  const endpointCount = async () => (await t.pool.query("SELECT count(*)::int AS n FROM webhook_endpoint")).rows[0].n as number;
  const lastAudit = async () =>
    (await t.pool.query("SELECT autore_tipo, azione, oggetto_id, dettagli FROM registro_amministrativo ORDER BY id DESC LIMIT 1")).rows[0];

  let id: number;
  let secret: string;
  // An address of a documentation range (TEST-NET-3): public, and no name to resolve.
  const URL_ERP = "https://203.0.113.10/banchina/eventi";

  test("create prints the secret alone on stdout, once, and records the endpoint and its audit entry", async () => {
    const r = await cliPublic(
      "webhook",
      "create",
      "--url",
      URL_ERP,
      "--eventi",
      "fornitore.modificato, movimenti.registrati",
      "--descrizione",
      "Gestionale",
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^whsec_[A-Za-z0-9+/=]+\n$/);
    secret = r.stdout.trim();
    expect(r.stderr).not.toContain(secret);
    expect(r.stderr).toMatch(/mostrato solo ora/);
    const row = (await t.pool.query("SELECT id, url, descrizione, eventi, segreto, attivo FROM webhook_endpoint")).rows;
    expect(row).toEqual([
      {
        id: expect.any(Number),
        url: URL_ERP,
        descrizione: "Gestionale",
        eventi: ["fornitore.modificato", "movimenti.registrati"],
        segreto: secret,
        attivo: true,
      },
    ]);
    id = row[0].id;
    expect(r.stderr).toContain(`webhook ${id} (${URL_ERP}`);
    expect(await lastAudit()).toMatchObject({ autore_tipo: "riga_di_comando", azione: "webhook.creato", oggetto_id: id });
  });

  test("list shows one line per endpoint, never its secret", async () => {
    const r = await cli("webhook", "list");
    expect(r.code).toBe(0);
    const [header, ...rows] = r.stdout.trim().split("\n");
    expect(header!.split(/\s{2,}/)).toEqual([
      "id",
      "attivo",
      "url",
      "eventi",
      "in attesa",
      "fallite",
      "ultimo successo",
      "ultimo errore",
      "per richiesta",
      "consegna",
    ]);
    expect(rows.map((l) => l.split(/\s{2,}/))).toEqual([
      [String(id), "sì", URL_ERP, "fornitore.modificato,movimenti.registrati", "0", "0", "-", "-", "1", "ordinata"],
    ]);
    expect(r.stdout + r.stderr).not.toContain(secret);
  });

  test("disable and enable: the list and the administrative log follow", async () => {
    const off = await cli("webhook", "disable", String(id));
    expect(off.code).toBe(0);
    expect(off.stdout).toMatch(new RegExp(`Disattivato il webhook ${id} `));
    expect(await lastAudit()).toMatchObject({ autore_tipo: "riga_di_comando", azione: "webhook.disattivato", oggetto_id: id });
    expect((await cli("webhook", "list")).stdout.split("\n")[1]!.split(/\s{2,}/)[1]).toBe("no");
    const on = await cli("webhook", "enable", String(id));
    expect(on.code).toBe(0);
    expect(on.stdout).toMatch(new RegExp(`Riattivato il webhook ${id} `));
    expect(await lastAudit()).toMatchObject({ azione: "webhook.riattivato", oggetto_id: id });
    expect((await cli("webhook", "list")).stdout.split("\n")[1]!.split(/\s{2,}/)[1]).toBe("sì");
    const missing = await cli("webhook", "disable", "999999");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/Il webhook 999999 non esiste/);
  });

  test("replay --da N queues again the endpoint's events from sequence N; list shows them pending, then a failure", async () => {
    // An event of the endpoint's types (a supplier's trigger records it at commit), already delivered: as a
    // worker leaves it, the endpoint's cursor past it and its delivery done.
    await t.pool.query("INSERT INTO fornitori (codice, nome) VALUES ('WH-F', 'Fornitore dei webhook')");
    const { rows: ev } = await t.pool.query("SELECT max(id)::int AS id FROM eventi WHERE tipo = 'fornitore.modificato'");
    const seq = ev[0].id as number;
    await t.pool.query("UPDATE webhook_endpoint SET cursore = $2 WHERE id = $1", [id, seq]);
    await t.pool.query(
      "INSERT INTO webhook_consegne (endpoint_id, evento_id, stato, tentativi, concluso_il) VALUES ($1, $2, 'consegnata', 1, now())",
      [id, seq],
    );
    const r = await cli("webhook", "replay", String(id), "--da", String(seq));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(`Webhook ${id}: 1 evento sarà riconsegnato dalla sequenza ${seq}`);
    expect(await lastAudit()).toMatchObject({ autore_tipo: "riga_di_comando", azione: "webhook.riconsegna", oggetto_id: id });
    const { rows: pending } = await t.pool.query("SELECT id, evento_id, stato FROM webhook_consegne WHERE endpoint_id = $1", [id]);
    expect(pending).toEqual([{ id: expect.any(Number), evento_id: seq, stato: "in_attesa" }]);
    await t.pool.query(
      `INSERT INTO webhook_tentativi (consegna_id, endpoint_id, iniziato_il, durata_ms, stato_http, esito, risposta)
       VALUES ($1, $2, now(), 12, 503, 'rifiutato', 'occupato')`,
      [pending[0].id, id],
    );
    const line = (await cli("webhook", "list")).stdout.split("\n")[1]!.split(/\s{2,}/);
    expect(line.slice(4, 7)).toEqual(["1", "0", "-"]);
    expect(line[7]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d HTTP 503$/);
    // A sequence issued with no event of its types after it (drawn by a write that rolled back): nothing to send.
    const drawn = (await t.pool.query("SELECT nextval('eventi_id_seq')::int AS n")).rows[0].n as number;
    const none = await cli("webhook", "replay", String(id), "--da", String(drawn));
    expect(none.code).toBe(0);
    expect(none.stdout).toMatch(/Nessun evento da riconsegnare/);
    // One above any sequence issued is a mistake, refused as REST refuses it (cursore_non_valido).
    const beyond = await cli("webhook", "replay", String(id), "--da", String(drawn + 1000));
    expect(beyond.code).toBe(1);
    expect(beyond.stderr).toMatch(`supera ogni sequenza di evento emessa dal servizio (${drawn})`);
  });

  test("usage errors (2): an unknown event type, a missing --da, a bad id; nothing is created", async () => {
    const before = await endpointCount();
    const type = await cliPublic("webhook", "create", "--url", URL_ERP, "--eventi", "movimenti.registrati,ordine.creato");
    expect(type.code).toBe(2);
    expect(type.stdout).toBe("");
    expect(type.stderr).toMatch(/tipo di evento sconosciuto: ordine\.creato; quelli ammessi sono movimenti\.registrati, /);
    const twice = await cliPublic("webhook", "create", "--url", URL_ERP, "--eventi", "arrivo.registrato,arrivo.registrato");
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/un tipo di evento è ripetuto/);
    const noTypes = await cliPublic("webhook", "create", "--url", URL_ERP);
    expect(noTypes.code).toBe(2);
    expect(noTypes.stderr).toMatch(/indicare i tipi di evento: --eventi/);
    const noDa = await cli("webhook", "replay", String(id));
    expect(noDa.code).toBe(2);
    expect(noDa.stderr).toMatch(/indicare la sequenza di partenza \(--da\)/);
    const badId = await cli("webhook", "disable", "uno");
    expect(badId.code).toBe(2);
    expect(badId.stderr).toMatch(/il webhook deve essere un numero intero maggiore di zero: ricevuto 'uno'/);
    const sub = await cli("webhook", "delete", "1");
    expect(sub.code).toBe(2);
    expect(sub.stderr).toMatch(/sottocomando sconosciuto: webhook delete/);
    expect(await endpointCount()).toBe(before);
  });

  test("create --per-richiesta N --parallela, then update changes only what it is given, logged", async () => {
    const r = await cliPublic(
      "webhook",
      "create",
      "--url",
      `${URL_ERP}/lotti`,
      "--eventi",
      "movimenti.registrati",
      "--per-richiesta",
      "50",
      "--parallela",
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/50 eventi per richiesta, consegna parallela/);
    const settings = async (url: string) =>
      (await t.pool.query("SELECT id, eventi, eventi_per_richiesta, consegna FROM webhook_endpoint WHERE url = $1", [url])).rows[0];
    const made = await settings(`${URL_ERP}/lotti`);
    expect(made).toMatchObject({ eventi_per_richiesta: 50, consegna: "parallela" });
    const line = (await cli("webhook", "list")).stdout.split("\n").find((l) => l.startsWith(`${made.id} `))!;
    expect(line.split(/\s{2,}/).slice(-2)).toEqual(["50", "parallela"]);

    const u = await cli("webhook", "update", String(made.id), "--per-richiesta", "5", "--ordinata");
    expect(u.code, u.stderr).toBe(0);
    expect(u.stdout).toMatch(new RegExp(`Modificato il webhook ${made.id} .*5 eventi per richiesta, consegna ordinata`));
    expect(await settings(`${URL_ERP}/lotti`)).toMatchObject({
      eventi: ["movimenti.registrati"],
      eventi_per_richiesta: 5,
      consegna: "ordinata",
    });
    expect(await lastAudit()).toMatchObject({ autore_tipo: "riga_di_comando", azione: "webhook.modificato", oggetto_id: made.id });
    const ev = await cli("webhook", "update", String(made.id), "--eventi", "arrivo.registrato");
    expect(ev.code, ev.stderr).toBe(0);
    expect(await settings(`${URL_ERP}/lotti`)).toMatchObject({ eventi: ["arrivo.registrato"], eventi_per_richiesta: 5 });
  });

  test("usage errors (2) of the throughput options; nothing is created or changed", async () => {
    const before = (await t.pool.query("SELECT json_agg(w ORDER BY id) AS all FROM webhook_endpoint w")).rows[0].all;
    for (const [args, message] of [
      [["--per-richiesta", "0"], /--per-richiesta deve essere un numero intero da 1 a 100: ricevuto '0'/],
      [["--per-richiesta", "101"], /da 1 a 100: ricevuto '101'/],
      [["--per-richiesta", "dieci"], /ricevuto 'dieci'/],
      [["--parallela", "--ordinata"], /si escludono/],
    ] as const) {
      const c = await cliPublic("webhook", "create", "--url", URL_ERP, "--eventi", "movimenti.registrati", ...args);
      expect(c.code, args.join(" ")).toBe(2);
      expect(c.stderr).toMatch(message);
      const u = await cli("webhook", "update", String(id), ...args);
      expect(u.code, args.join(" ")).toBe(2);
      expect(u.stderr).toMatch(message);
    }
    const nothing = await cli("webhook", "update", String(id));
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toMatch(/indicare che cosa cambiare/);
    const missing = await cli("webhook", "update", "999999", "--parallela");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/Il webhook 999999 non esiste/);
    expect((await t.pool.query("SELECT json_agg(w ORDER BY id) AS all FROM webhook_endpoint w")).rows[0].all).toEqual(before);
  });

  test("a loopback or private address is refused (1) unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true", async () => {
    const before = await endpointCount();
    for (const url of ["http://127.0.0.1:9000/hook", "http://[::1]/hook", "http://192.168.1.20/erp", "http://localhost:8080/x"]) {
      const r = await cliPublic("webhook", "create", "--url", url, "--eventi", "movimenti.registrati");
      expect(r.code, url).toBe(1);
      expect(r.stdout, url).toBe("");
      expect(r.stderr, url).toMatch(/rete privata, di loopback o link-local.*WEBHOOK_ALLOW_PRIVATE_NETWORKS=true/);
    }
    const scheme = await cliPublic("webhook", "create", "--url", "ftp://203.0.113.10/x", "--eventi", "movimenti.registrati");
    expect(scheme.code).toBe(1);
    expect(scheme.stderr).toMatch(/deve iniziare con http:\/\/ o https:\/\//);
    expect(await endpointCount()).toBe(before);
    const lan = await cliWithEnv(
      { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" },
      "webhook",
      "create",
      "--url",
      "http://127.0.0.1:9000/hook",
      "--eventi",
      "movimenti.registrati",
    );
    expect(lan.code, lan.stderr).toBe(0);
    expect(lan.stdout).toMatch(/^whsec_/);
    expect(await endpointCount()).toBe(before + 1);
  });

  test("--help lists the webhook commands and every event type", async () => {
    const r = await cli("--help");
    expect(r.stdout).toMatch(/webhook create --url URL --eventi TIPO\[,TIPO\]/);
    expect(r.stdout).toMatch(/webhook replay ID --da N/);
    expect(r.stdout).toMatch(/\[--per-richiesta N\] \[--parallela\]/);
    expect(r.stdout).toMatch(/webhook update ID \[--eventi TIPO\[,TIPO\]\] \[--per-richiesta N\] \[--parallela \| --ordinata\]/);
    expect(r.stdout).toMatch(/--scopes lettura\[,scrittura\]\[,webhook\]/);
    const { EVENT_TYPES } = await import("../lib/domain-lists");
    for (const type of EVENT_TYPES) expect(r.stdout).toContain(type);
  });
});
