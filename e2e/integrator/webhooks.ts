import { type IntegratorClient, type Keys, startReceiver, until } from "./client";

/** Anything named like a receiver's answer body, at any depth of a REST answer (section 10 forbids it). */
function carriesAnswerBody(node: unknown): boolean {
  if (typeof node === "string") return node.includes("SEGRETO-DEL-RICEVENTE");
  if (node === null || typeof node !== "object") return false;
  return Object.entries(node).some(([k, v]) => k === "risposta" || carriesAnswerBody(v));
}

/**
 * Section 10 by REST: an integrator creates its endpoints with a `webhook` + `lettura` key, one batched and
 * ordered, one parallel; every event of its writes arrives once, signed, batches in `sequenza` order.
 */
export async function webhooksByRest(c: IntegratorClient, k: Keys, ctx: { magazzino: number; articolo: string }): Promise<void> {
  const batched = await startReceiver(20);
  const parallel = await startReceiver(50);
  try {
    c.refused(
      "POST /webhook senza il permesso webhook: permesso_negato",
      await c.call(k.writer, "POST", "/webhook", { url: batched.url, eventi: ["movimenti.registrati"] }),
      403,
      "permesso_negato",
    );
    c.refused(
      "POST /webhook con Idempotency-Key: richiesta_non_valida",
      await c.call(k.hooks, "POST", "/webhook", { url: batched.url, eventi: ["movimenti.registrati"] }, { "idempotency-key": "k1" }),
      422,
      "richiesta_non_valida",
    );
    c.refused(
      "eventi_per_richiesta oltre 100: richiesta_non_valida",
      await c.call(k.hooks, "POST", "/webhook", { url: batched.url, eventi: ["movimenti.registrati"], eventi_per_richiesta: 101 }),
      422,
      "richiesta_non_valida",
    );
    const created = await c.call(k.hooks, "POST", "/webhook", {
      url: batched.url,
      eventi: ["movimenti.registrati"],
      eventi_per_richiesta: 10,
    });
    const ok = c.check(
      "POST /webhook crea l'endpoint e mostra il segreto una volta",
      created.status >= 200 && created.status < 300 && /^whsec_/.test(created.body?.segreto ?? ""),
      created.body,
    );
    if (!ok) return;
    // The answer: the endpoint as GET /webhook/{id} shows it, and the secret beside it.
    const id: number = created.body.webhook?.id;
    batched.setSecret(created.body.segreto);
    const par = await c.call(k.hooks, "POST", "/webhook", { url: parallel.url, eventi: ["movimenti.registrati"], consegna: "parallela" });
    c.check("un endpoint parallelo", par.body?.webhook?.consegna === "parallela", par.body);
    parallel.setSecret(par.body?.segreto ?? "");

    const listed = await c.call(k.hooks, "GET", "/webhook");
    const listedIds: number[] = (listed.body?.webhook ?? []).map((e: any) => e.id);
    c.check(
      "GET /webhook elenca i propri endpoint",
      listedIds.includes(id) && !JSON.stringify(listed.body).includes("whsec_"),
      listed.body,
    );
    c.refused(
      "l'endpoint di un'altra chiave non si vede: non_trovato",
      await c.call(k.otherHooks, "GET", `/webhook/${id}`),
      404,
      "non_trovato",
    );
    const othersList = await c.call(k.otherHooks, "GET", "/webhook");
    c.check("né compare nel suo elenco", !JSON.stringify(othersList.body ?? {}).includes(batched.url), othersList.body);

    // 30 operations in quick succession, from an events cursor taken just before.
    const from = (await c.call(k.writer, "GET", "/cursori")).body?.eventi ?? 0;
    for (let i = 0; i < 30; i++) {
      const r = await c.call(k.writer, "POST", "/movimenti", {
        natura: "carico",
        magazzino: ctx.magazzino,
        righe: [{ codice: ctx.articolo, quantita: 1 }],
      });
      if (r.status !== 200) c.check(`movimento ${i} scritto`, false, r.body);
    }
    const events = await c.call(k.writer, "GET", `/eventi?tipo=movimenti.registrati&dopo=${from}&limite=100`);
    const expected: number[] = (events.body?.eventi ?? []).map((e: any) => e.sequenza);
    c.check("GET /eventi dal cursore: le 30 operazioni", expected.length === 30, events.body);
    const seen = (r: typeof batched) => r.requests.flatMap((q) => q.eventi.map((e: any) => e.sequenza as number));
    await until("batches", () => expected.every((s) => seen(batched).includes(s)), 60_000);
    await until("parallel", () => expected.every((s) => seen(parallel).includes(s)), 60_000);

    const got = seen(batched).filter((s) => expected.includes(s));
    c.check("ogni evento arriva al ricevente a lotti, una volta", got.length === 30 && new Set(got).size === 30, { got, expected });
    c.check(
      "i lotti in ordine di sequenza",
      got.every((s, i) => i === 0 || s > got[i - 1]!),
      got,
    );
    c.check(
      "ogni richiesta firmata (Standard Webhooks)",
      batched.requests.length > 0 && batched.requests.every((r) => r.verified),
      batched.requests.length,
    );
    c.check(
      "webhook-id di un lotto: msg_<primo>_<ultimo>",
      batched.requests.every((r) => r.id === `msg_${r.eventi[0].sequenza}_${r.eventi.at(-1).sequenza}`),
      batched.requests.map((r) => r.id),
    );
    c.check("con 10 per richiesta servono meno richieste che eventi", batched.requests.length < 30, batched.requests.length);
    const pgot = seen(parallel).filter((s) => expected.includes(s));
    c.check(
      "l'endpoint parallelo riceve ogni evento una volta, firmato",
      pgot.length === 30 && new Set(pgot).size === 30 && parallel.requests.every((r) => r.verified),
      pgot,
    );

    const one = await c.call(k.hooks, "GET", `/webhook/${id}`);
    c.check(
      "GET /webhook/{id}: stato e ultimi tentativi",
      one.status === 200 && one.body?.id === id && Array.isArray(one.body?.ultimi_tentativi) && one.body.ultimi_tentativi.length > 0,
      one.body,
    );
    c.check(
      "nessuna risposta REST porta il corpo del ricevente",
      !carriesAnswerBody(one.body) && !carriesAnswerBody(listed.body),
      one.body,
    );

    const patched = await c.call(k.hooks, "PATCH", `/webhook/${id}`, { attivo: false, eventi_per_richiesta: 5 });
    c.check(
      "PATCH /webhook/{id} cambia stato e impostazioni",
      patched.status === 200 && patched.body?.attivo === false && patched.body?.eventi_per_richiesta === 5,
      patched.body,
    );
    c.refused(
      "PATCH di un endpoint altrui: non_trovato",
      await c.call(k.otherHooks, "PATCH", `/webhook/${id}`, { attivo: true }),
      404,
      "non_trovato",
    );
    const replay = await c.call(k.hooks, "POST", `/webhook/${id}/riprova`, { da: expected[0] });
    c.check("POST /webhook/{id}/riprova accetta da", replay.status === 200, replay.body);
    const del = await c.call(k.hooks, "DELETE", `/webhook/${id}`);
    c.check("DELETE /webhook/{id}", del.status === 200 || del.status === 204, del.body);
    c.refused("dopo DELETE l'endpoint non c'è più", await c.call(k.hooks, "GET", `/webhook/${id}`), 404, "non_trovato");
    await c.call(k.hooks, "DELETE", `/webhook/${par.body?.webhook?.id}`);
  } finally {
    await batched.close();
    await parallel.close();
  }
}
