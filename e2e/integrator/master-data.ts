import type { IntegratorClient, Keys } from "./client";

/**
 * Section 9 as an ERP uses it: master data by upsert, purchase orders with per-order outcomes, closing
 * short with a reason, the change feeds, GET /cursori and a corrupted cursor. `tag` keeps codes unique per run.
 */
export async function masterDataAndOrders(c: IntegratorClient, k: Keys, tag: string): Promise<{ magazzino: number; articolo: string }> {
  const W = `MAG-${tag}`;
  const mag = await c.call(k.writer, "POST", "/magazzini", { magazzini: [{ codice: W, nome: "Magazzino integrazione" }] });
  c.check("POST /magazzini crea il magazzino", mag.status === 200 && mag.body?.righe?.[0]?.esito === "creato", mag.body);
  const magazzino: number = mag.body?.righe?.[0]?.id;
  const again = await c.call(k.writer, "POST", "/magazzini", { magazzini: [{ codice: W, nome: "Magazzino integrazione" }] });
  c.check("le stesse righe una seconda volta: invariato", again.body?.righe?.[0]?.esito === "invariato", again.body);
  const renamed = await c.call(k.writer, "POST", "/magazzini", { magazzini: [{ codice: W, nome: "Magazzino integrazione (nord)" }] });
  c.check("un campo cambiato: aggiornato", renamed.body?.righe?.[0]?.esito === "aggiornato", renamed.body);
  const warehouseEvents = await c.call(k.writer, "GET", "/eventi?tipo=magazzino.modificato&limite=100");
  const mine = (warehouseEvents.body?.eventi ?? []).filter((e: any) => e.dati?.codice === W);
  c.check("magazzino.modificato: un evento per creazione e modifica, nessuno per invariato", mine.length === 2, warehouseEvents.body);

  const F = `FOR-${tag}`;
  const sup = await c.call(k.writer, "POST", "/fornitori", { fornitori: [{ codice: F, nome: "Fornitore integrazione" }] });
  c.check("POST /fornitori crea il fornitore", sup.body?.righe?.[0]?.esito === "creato", sup.body);

  const T = `GUANTI-${tag}`;
  const V = `${T}-M`;
  const arts = await c.call(k.writer, "POST", "/articoli", {
    articoli: [
      { codice: T, descrizione: "Guanti nitrile" },
      { codice: V, descrizione: "Guanti nitrile M", modello: T },
      { codice: `VITE-${tag}`, descrizione: "Vite M6" },
    ],
  });
  c.check("POST /articoli: modello, variante e articolo creati", arts.status === 200 && arts.body?.creati === 3, arts.body);
  const variantUpdate = await c.call(k.writer, "POST", "/articoli", {
    articoli: [
      { codice: V, attivo: true },
      { codice: `VITE-${tag}`, descrizione: "Vite M6 zincata" },
    ],
  });
  c.check(
    "aggiornare una variante senza ripetere `modello` non fa fallire la chiamata",
    variantUpdate.status === 200 &&
      variantUpdate.body?.righe?.[0]?.esito === "invariato" &&
      variantUpdate.body?.righe?.[1]?.esito === "aggiornato",
    variantUpdate.body,
  );
  const off = await c.call(k.writer, "POST", "/articoli", { articoli: [{ codice: V, attivo: false }] });
  c.check("disattivare una variante: aggiornato", off.body?.righe?.[0]?.esito === "aggiornato", off.body);
  await c.call(k.writer, "POST", "/articoli", { articoli: [{ codice: V, attivo: true }] });

  const C = `CLI-${tag}`;
  await c.call(k.writer, "POST", "/clienti", {
    clienti: [
      { codice: C, ragione_sociale: `Rossi ${tag} S.r.l.` },
      { codice: `${C}-X`, ragione_sociale: `Bianchi ${tag} S.p.A.`, attivo: false },
    ],
  });
  const search = await c.call(k.writer, "GET", `/clienti?cerca=${encodeURIComponent(`Rossi ${tag}`)}&attivo=true`);
  c.check(
    "GET /clienti accetta cerca e attivo",
    search.status === 200 && search.body?.clienti?.length === 1 && search.body.clienti[0].codice === C,
    search.body,
  );
  const inactive = await c.call(k.writer, "GET", `/clienti?cerca=${tag}&attivo=false`);
  c.check(
    "GET /clienti?attivo=false: solo i disattivati",
    inactive.body?.clienti?.length === 1 && inactive.body.clienti[0].codice === `${C}-X`,
    inactive.body,
  );
  c.refused(
    "GET /clienti?attivo=forse: filtro_non_valido",
    await c.call(k.writer, "GET", "/clienti?attivo=forse"),
    422,
    "filtro_non_valido",
  );

  // Three orders, the second with an impossible date: its own outcome, the others written.
  const order = (numero: string, data: string) => ({
    numero,
    fornitore: F,
    data,
    magazzino: W,
    righe: [
      { numero_riga: 10, articolo: V, quantita: 20, prezzo: "2.5" },
      { numero_riga: 20, articolo: `VITE-${tag}`, quantita: 100, prezzo: "0.12" },
    ],
  });
  const orders = await c.call(k.writer, "POST", "/ordini-acquisto", {
    ordini: [order(`OA-${tag}-1`, "2026-11-20"), order(`OA-${tag}-2`, "2026-02-30"), order(`OA-${tag}-3`, "2026-11-21")],
  });
  const outcomes = orders.body?.ordini ?? orders.body?.righe ?? [];
  const bad = outcomes[1];
  c.check(
    "un ordine malformato è l'esito di quell'ordine (campo_non_valido con il campo), gli altri sono scritti",
    orders.status === 200 &&
      outcomes[0]?.esito === "creato" &&
      outcomes[2]?.esito === "creato" &&
      bad?.esito === "rifiutato" &&
      bad?.errore?.codice === "campo_non_valido" &&
      /data/.test(`${bad?.errore?.campo ?? ""} ${bad?.errore?.messaggio ?? ""}`),
    orders.body,
  );
  const orderId: number = outcomes[0]?.id;
  const close = await c.call(k.writer, "POST", `/ordini-acquisto/${orderId}/chiudi`, { righe: [20], motivo: "Fuori produzione" });
  c.check("chiudere una riga con un motivo", close.status === 200, close.body);
  const list = await c.call(k.writer, "GET", `/ordini-acquisto?fornitore=${sup.body?.righe?.[0]?.id}`);
  const read = (list.body?.ordini ?? []).find((o: any) => o.id === orderId);
  const row20 = read?.righe?.find((r: any) => r.numero_riga === 20);
  const row10 = read?.righe?.find((r: any) => r.numero_riga === 10);
  c.check(
    "motivo_chiusura si rilegge sulla riga (null sulle righe non chiuse)",
    row20?.motivo_chiusura === "Fuori produzione" && row20?.chiusa === "100" && row10?.motivo_chiusura === null,
    { list: list.body, read },
  );

  // GET /cursori: start from now, then see exactly what came after.
  const cursors = await c.call(k.writer, "GET", "/cursori");
  const cur = cursors.body ?? {};
  c.check(
    "GET /cursori dà i cursori di liste, feed ed eventi",
    cursors.status === 200 &&
      Number.isInteger(cur.movimenti) &&
      Number.isInteger(cur.eventi) &&
      Number.isInteger(cur.articoli?.dopo) &&
      Number.isInteger(cur.articoli?.modificati_dopo),
    cur,
  );
  const mov = await c.call(k.writer, "POST", "/movimenti", {
    natura: "carico",
    magazzino,
    righe: [{ codice: `VITE-${tag}`, quantita: 5 }],
  });
  const movId = mov.body?.righe?.[0]?.movimento;
  const after = await c.call(k.writer, "GET", `/movimenti?dopo=${cur.movimenti}`);
  c.check(
    "GET /movimenti dal cursore di /cursori: solo il movimento scritto dopo",
    after.status === 200 && after.body?.movimenti?.length === 1 && after.body.movimenti[0].id === movId,
    after.body,
  );
  const feed = await c.call(k.writer, "GET", `/articoli?modificati_dopo=${cur.articoli?.modificati_dopo}`);
  c.check(
    "il feed degli articoli da /cursori è vuoto finché nulla cambia",
    feed.status === 200 && feed.body?.articoli?.length === 0,
    feed.body,
  );
  const far = 999_999_999;
  c.refused(
    "GET /eventi con un cursore mai emesso: cursore_non_valido",
    await c.call(k.writer, "GET", `/eventi?dopo=${far}`),
    422,
    "cursore_non_valido",
  );
  c.refused(
    "GET /movimenti?dopo mai emesso: cursore_non_valido",
    await c.call(k.writer, "GET", `/movimenti?dopo=${far}`),
    422,
    "cursore_non_valido",
  );
  c.refused(
    "GET /articoli?modificati_dopo mai emesso: cursore_non_valido",
    await c.call(k.writer, "GET", `/articoli?modificati_dopo=${far}`),
    422,
    "cursore_non_valido",
  );
  return { magazzino, articolo: `VITE-${tag}` };
}
