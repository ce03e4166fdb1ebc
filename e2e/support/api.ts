import { expect } from "@playwright/test";

/**
 * The service under test through /api/v1 with a spec's key: what the screens did, checked as an integrator
 * would see it, never only on screen.
 */
export async function api(key: string, method: "GET" | "POST", path: string, body?: unknown) {
  const r = await fetch(`http://127.0.0.1:${process.env.BANCHINA_E2E_PORT}/api/v1${path}`, {
    method,
    // Closed after each answer: a kept-alive socket left idle here is closed by the service while the next
    // spec's seeding blocks this worker (execFileSync), and that spec's first fetch would pick it up dead
    // ("other side closed": stoccaggio.spec.ts's beforeAll, once in a full run).
    headers: {
      authorization: `Bearer ${key}`,
      connection: "close",
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
}

export interface OrderRow {
  riga: number;
  etichetta: string;
  articolo: { id: number; codice: string };
  ordinata: string;
  arrivata: string;
  residua: string;
  registrati: { movimento: number; quantita: string }[];
}

/** The rows of an order (closed ones too), by article code. */
export async function orderRows(key: string, ordine: number): Promise<Record<string, OrderRow>> {
  const r = await api(key, "POST", "/arrivi/cerca", { ordine, includi_evase: true });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const rows = (r.body.ordini[0]?.righe ?? []) as OrderRow[];
  return Object.fromEntries(rows.map((row) => [row.articolo.codice, row]));
}

/** One row of an order: its arrivals (registrati, as the service has them). */
export async function orderRow(key: string, ordine: number, codice: string): Promise<OrderRow> {
  const row = (await orderRows(key, ordine))[codice];
  expect(row, `riga di ${codice} nell'ordine ${ordine}`).toBeDefined();
  return row!;
}

/** The open lots of an article in a warehouse. */
export async function lotsOf(key: string, articolo: number, magazzino: number) {
  const r = await api(key, "GET", `/articoli/${articolo}/lotti?magazzino=${magazzino}`);
  expect(r.status).toBe(200);
  return r.body.lotti as { lotto: string; scadenza: string | null; residua: string }[];
}
