import { describe, expect, test } from "vitest";
import { EVENT_TYPES } from "../../src/lib/domain-lists";
import { call, callUntilSettled, launch, sleep, snapshot, stop, waitUntil, type HttpResult, type Service } from "./harness";
import { inFlight, requestLock } from "./inflight";
import { createFor, eventsAfter, Receiver } from "./receiver";
import { articleCode, seedArticles, seedOrder, seedSupplier } from "./seed";
import { ALLOW_PRIVATE, eventCount, report, withDb, webhookSuite } from "./webhook-support";

/**
 * Webhooks (docs/api.md section 10) with the real service as a child process: receivers are node:http servers on
 * 127.0.0.1 started here, every delivery is verified with the Standard Webhooks library, and what the
 * receivers saw is compared with GET /eventi and with the service's own log (webhook_consegne,
 * webhook_tentativi). Each test has its own database (no endpoint of one test is worked in another).
 *
 * Here: a write that does not commit (refused, or killed before its COMMIT) leaves no event. Endpoints are created
 * with the service's createEndpoint (as the CLI does) with private networks allowed.
 */

webhookSuite();

// ---- the tests -------------------------------------------------------------------------------------------

describe("webhooks, real service", () => {
  test("5. a write that does not commit leaves no event: refusals, and a SIGKILL before COMMIT", async () => {
    const started = Date.now();
    await withDb(async (c) => {
      const N = 5_000;
      const ids = await seedArticles(c.t.pool, "RB", N);
      await seedArticles(c.t.pool, "LT", 1, { lotti: true });
      const f1 = await seedSupplier(c.t.pool, "F1");
      const order = await seedOrder(c.t.pool, {
        numero: "RB-1",
        fornitore: f1,
        magazzino: c.m1,
        righe: [{ articolo: ids[0]!, quantita: 5 }],
      });
      const rx = new Receiver();
      await rx.open();
      const ep = await createFor(c.t, rx, EVENT_TYPES);
      let s: Service = await launch({ databaseUrl: c.t.url, env: ALLOW_PRIVATE });
      const righe = (contato: number) => ids.map((_, i) => ({ codice: articleCode("RB", i + 1), contato }));
      const lastEventSeq = async (): Promise<number> => (await c.t.pool.query("SELECT last_value::int AS v FROM eventi_id_seq")).rows[0].v;

      const warm = await call(s.base, "POST", "/giacenze/allinea", {
        key: c.key,
        body: { magazzino: c.m1, righe: righe(5) },
        idem: "warm-allinea",
      });
      expect(warm.status, warm.text.slice(0, 300)).toBe(200);
      expect(warm.body.scritte).toBe(N);
      await waitUntil("la consegna dell'allineamento di riscaldamento", () => rx.delivered().length === 1, 90_000);
      const before = await eventCount(c.t);
      const snap = await snapshot(c.t.pool);

      // Refusals: nothing written, no event.
      const refusals: [string, HttpResult][] = [];
      const refuse = async (what: string, p: string, body: unknown, check: (r: HttpResult) => void) => {
        const r = await call(s.base, "POST", p, { key: c.key, body });
        check(r);
        refusals.push([what, r]);
        expect(await eventCount(c.t), what).toEqual(before);
      };
      await refuse(
        "movimento su un'operazione inesistente",
        "/movimenti",
        { natura: "carico", magazzino: c.m1, operazione: 999_999, righe: [{ codice: articleCode("WH", 1), quantita: 1 }] },
        (r) => {
          expect(r.status, r.text).toBe(422);
          expect(r.body.codice).toBe("operazione_non_trovata");
        },
      );
      await refuse(
        "scarico da un lotto vuoto",
        "/movimenti",
        { natura: "scarico", magazzino: c.m1, righe: [{ codice: articleCode("LT", 1), quantita: 1, lotto: "NESSUNO" }] },
        (r) => {
          expect(r.status, r.text).toBe(200);
          expect(r.body).toMatchObject({ operazione: null, scritte: 0, rifiutate: 1 });
        },
      );
      await refuse("arrivo oltre l'ordinato", "/arrivi", { magazzino: c.m1, ddt: "RB", riga: order.righe[0], quantita: 6 }, (r) => {
        expect(r.status, r.text).toBe(422);
        expect(r.body.codice).toBe("quantita_eccessiva");
      });
      await refuse(
        "allineamento rifiutato (articolo ripetuto)",
        "/giacenze/allinea",
        {
          magazzino: c.m1,
          righe: [
            { codice: articleCode("RB", 1), contato: 1 },
            { codice: articleCode("RB", 1), contato: 2 },
          ],
        },
        (r) => {
          expect(r.status, r.text).toBe(200);
          expect(r.body).toMatchObject({ operazione: null, scritte: 0, rifiutate: 2 });
          for (const x of r.body.righe) expect(x.errore.codice).toBe("articolo_ripetuto");
        },
      );
      await refuse("allineamento simulato", "/giacenze/allinea", { magazzino: c.m1, simula: true, righe: righe(6).slice(0, 10) }, (r) => {
        expect(r.status, r.text).toBe(200);
        expect(r.body.operazione).toBeNull();
      });
      await refuse(
        "allineamento su un magazzino inesistente",
        "/giacenze/allinea",
        { magazzino: 999_999, righe: righe(6).slice(0, 1) },
        (r) => {
          expect(r.status, r.text).toBeGreaterThanOrEqual(400);
          expect(r.status).toBeLessThan(500);
        },
      );
      expect(await snapshot(c.t.pool)).toEqual(snap);

      // SIGKILL in the middle of a 5,000-row alignment: its transaction never commits, its event never exists.
      // The count reads its balances under lock before it sends its last statement with COMMIT, so a balance
      // held by another transaction stops it there, mid-transaction, for as long as the test needs: the kill
      // lands before COMMIT is sent however fast the machine is.
      const seqBefore = await lastEventSeq();
      const crashBody = { magazzino: c.m1, righe: righe(7) };
      const lock = requestLock(c.keyId, "/giacenze/allinea", "crash-allinea");
      const holder = await c.t.pool.connect();
      await holder.query("BEGIN");
      await holder.query("SELECT 1 FROM giacenze WHERE articolo_id = $1 AND magazzino_id = $2 FOR UPDATE", [ids[N - 1], c.m1]);
      const sentAt = Date.now();
      const pending = call(s.base, "POST", "/giacenze/allinea", { key: c.key, body: crashBody, idem: "crash-allinea" }).then(
        () => true,
        () => false,
      );
      const blocked = async () => {
        const f = await inFlight(c.t.pool, lock);
        if (!f) return false;
        const w = await c.t.pool.query("SELECT wait_event_type FROM pg_stat_activity WHERE pid = $1", [f.pid]);
        return w.rows[0]?.wait_event_type === "Lock";
      };
      await waitUntil("l'allineamento attende il saldo tenuto dal test", blocked, 60_000, 5);
      const seen = { firstSeenMs: Date.now() - sentAt };
      s.proc.kill("SIGKILL");
      const killedAt = Date.now() - sentAt;
      expect(await pending, "the client got no answer").toBe(false);
      await s.exit;
      await holder.query("ROLLBACK");
      holder.release();
      await waitUntil("la transazione orfana termina", async () => !(await inFlight(c.t.pool, lock)), 120_000, 20);
      expect(await eventCount(c.t)).toEqual(before);
      expect(await snapshot(c.t.pool)).toEqual(snap);
      const seqAfterKill = await lastEventSeq();

      // SIGKILL after the event row was written, before COMMIT: the ledger's statement has drawn the event's
      // sequenza (the sequence moved) and the transaction is still open (it stores the idempotent response
      // next). The event row existed, uncommitted: it must vanish with the transaction. The window is short:
      // a try whose COMMIT slips in before the kill is a committed write (with its one event) and is tried
      // again with another key, three times at most.
      let cutAfterEvent: Record<string, unknown> | undefined;
      const missed: string[] = [];
      let committedExtra = 0;
      for (let attempt = 1; attempt <= 3 && !cutAfterEvent; attempt++) {
        s = await launch({ databaseUrl: c.t.url, env: ALLOW_PRIVATE });
        const idem = `crash-dopo-evento-${attempt}`;
        const seq0 = await lastEventSeq();
        const count0 = await eventCount(c.t);
        const lock2 = requestLock(c.keyId, "/giacenze/allinea", idem);
        const sent = Date.now();
        let answered = false;
        const req = call(s.base, "POST", "/giacenze/allinea", {
          key: c.key,
          body: { magazzino: c.m1, righe: righe(10 + attempt) },
          idem,
        }).then(
          (r) => {
            answered = true;
            return r.status;
          },
          () => null,
        );
        let seenOpen: { seq: number; xid: string | null; ms: number } | undefined;
        while (!answered && Date.now() - sent < 30_000) {
          const f = await inFlight(c.t.pool, lock2);
          const seq = await lastEventSeq();
          if (f?.xid && seq > seq0 && (await inFlight(c.t.pool, lock2))?.xid) {
            seenOpen = { seq, xid: f.xid, ms: Date.now() - sent };
            break;
          }
          await sleep(1);
        }
        if (seenOpen) s.proc.kill("SIGKILL");
        const status = await req;
        if (seenOpen) await s.exit;
        await stop(s); // already dead after a kill; a plain stop otherwise
        await waitUntil("la transazione orfana termina", async () => !(await inFlight(c.t.pool, lock2)), 120_000, 20);
        const count1 = await eventCount(c.t);
        if (seenOpen && status === null && count1.n === count0.n) {
          cutAfterEvent = { tentativo: attempt, ...seenOpen, sequenzaDopo: await lastEventSeq(), eventi: count1 };
          expect(count1).toEqual(count0);
          expect(seenOpen.seq).toBeGreaterThan(count0.max);
          expect((await c.t.pool.query("SELECT count(*)::int AS n FROM eventi WHERE id = $1", [seenOpen.seq])).rows[0].n).toBe(0);
        } else {
          // Committed before the kill landed (or before it was seen in the window): one event, as any write.
          missed.push(`${attempt}: ${seenOpen ? "COMMIT prima del colpo" : "finestra non vista"} (risposta ${status})`);
          expect(count1.n).toBe(count0.n + 1);
          committedExtra++;
        }
      }
      expect(cutAfterEvent, `nessun colpo tra la scrittura dell'evento e il COMMIT: ${missed.join("; ")}`).toBeDefined();
      const baseline = { n: before.n + committedExtra };

      // Restarted: the first request's retry with the same key commits once, with exactly one event.
      s = await launch({ databaseUrl: c.t.url, env: ALLOW_PRIVATE });
      await waitUntil("le consegne dei tentativi arrivati al COMMIT", () => rx.delivered().length === 1 + committedExtra, 60_000);
      await sleep(500);
      expect(rx.got).toHaveLength(1 + committedExtra);
      const retry = await callUntilSettled(s.base, "POST", "/giacenze/allinea", { key: c.key, body: crashBody, idem: "crash-allinea" });
      expect(retry.status, retry.text.slice(0, 300)).toBe(200);
      expect(retry.body).toMatchObject({ scritte: N, rifiutate: 0 });
      const after = await eventCount(c.t);
      expect(after.n).toBe(baseline.n + 1);
      await waitUntil("la consegna del nuovo tentativo", () => rx.delivered().length === 2 + committedExtra, 60_000);
      await sleep(500);
      const events = await eventsAfter(s.base, c.key, ep.cursore);
      expect(events.map((e) => e.tipo)).toEqual(Array(2 + committedExtra).fill("giacenze.allineate"));
      expect(events.at(-1)!.dati.operazione).toBe(retry.body.operazione);
      expect((events.at(-1)!.dati.movimenti as unknown[]).length).toBe(N);
      expect(rx.got.map((x) => x.id)).toEqual(events.map((e) => e.id));
      for (const x of rx.got) expect(x.verified, x.verifyError).toBe(true);
      report("webhook 5 nessun evento senza commit", {
        rifiuti: refusals.map(([w, r]) => `${w}: ${r.status} ${r.body?.codice ?? ""}`.trim()),
        riscaldamentoMs: warm.ms,
        vistaScrivereMs: seen.firstSeenMs,
        uccisaMs: killedAt,
        sequenzaEventiPrimaDopoKill: [seqBefore, seqAfterKill],
        colpoDopoEvento: cutAfterEvent,
        mancati: missed,
        eventi: { prima: before, dopo: after },
      });
      await stop(s);
    });
    report("webhook 5 durata", { ms: Date.now() - started });
  }, 300_000);
});
