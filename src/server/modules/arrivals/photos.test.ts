import { describe, expect } from "vitest";
import { handleRestRequest } from "../../http/rest-handler";
import type { TestDb } from "../../testing/db";
import { caller, countRows, rest, seedArticle, seedKey, seedOrder, seedSupplier, seedWarehouse } from "../../testing/fixtures";
import { test } from "../../testing/test";
import type { Actor } from "../auth/actor";

/** docs/api.md section 12: photos of receiving differences, by REST (the image as the body) and by tRPC (base64). */

let t: TestDb;
let key: string;
let readKey: string;
let fornitore: number;
let articolo: number;
let riga: number;

const JPEG = (size = 64) => {
  const b = new Uint8Array(size);
  b.set([0xff, 0xd8, 0xff, 0xe0]);
  b.fill(7, 4);
  return b;
};
const PNG = () => Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);

test.beforeAll(async ({ db }) => {
  t = db;
  const m = (await seedWarehouse(t.prisma, "FOTO-M")).id;
  articolo = (await seedArticle(t.prisma, "FOTO-A", { ean: "8007100000019" })).id;
  fornitore = (await seedSupplier(t.prisma, "FORN-PAL-FOTO")).id;
  riga = (
    await seedOrder(t.prisma, {
      numero: "FOTO-1",
      fornitore,
      magazzino: m,
      data: "2026-11-20",
      righe: [{ articolo, quantita: "10", prezzo: "1" }],
    })
  ).righe[0]!;
  key = (await seedKey(t.prisma)).chiave;
  readKey = (await seedKey(t.prisma, ["lettura"])).chiave;
});

/** A difference recorded as a receipt would (the photos' parent). */
async function difference(): Promise<number> {
  const { rows } = await t.pool.query(
    `INSERT INTO differenze_ricevimento (data, fornitore_id, riga_ordine_id, articolo_id, ricevuta, quantita, motivo)
     VALUES ('2026-11-28', $1, $2, $3, 8, 2, 'danneggiato') RETURNING id`,
    [fornitore, riga, articolo],
  );
  return rows[0].id;
}

const upload = (id: number | string, bytes: Uint8Array, type: string | null, headers: Record<string, string> = {}, k = key) =>
  rest("POST", `/differenze-ricevimento/${id}/foto`, {
    key: k,
    rawBody: bytes,
    headers: { ...(type === null ? {} : { "content-type": type }), ...headers },
  });

async function download(id: number, n: number, k = key) {
  const res = await handleRestRequest(
    new Request(`http://localhost/api/v1/differenze-ricevimento/${id}/foto/${n}`, { headers: { authorization: `Bearer ${k}` } }),
  );
  return { status: res.status, type: res.headers.get("content-type"), bytes: new Uint8Array(await res.arrayBuffer()) };
}

const photos = async () => countRows(t, "foto_differenze");

describe("POST /differenze-ricevimento/{id}/foto", () => {
  test("stores a JPEG and a PNG, numbered; GET answers the same bytes with their type; the list counts them", async () => {
    const id = await difference();
    const jpeg = JPEG(1000);
    const a = await upload(id, jpeg, "image/jpeg");
    expect(a.status).toBe(201);
    expect(a.body).toEqual({
      differenza: id,
      n: 1,
      tipo: "image/jpeg",
      dimensione: 1000,
      percorso: `/api/v1/differenze-ricevimento/${id}/foto/1`,
    });
    const b = await upload(id, PNG(), "image/png; charset=binary");
    expect(b.status).toBe(201);
    expect(b.body.n).toBe(2);

    const one = await download(id, 1, readKey);
    expect(one).toEqual({ status: 200, type: "image/jpeg", bytes: jpeg });
    const two = await download(id, 2);
    expect(two.type).toBe("image/png");
    expect(two.bytes).toEqual(PNG());

    const list = await rest("GET", "/differenze-ricevimento", { key: readKey });
    expect(list.body.differenze.find((d: { id: number }) => d.id === id).foto).toBe(2);
  });

  test("an Idempotency-Key replays the stored answer and stores nothing again", async () => {
    const id = await difference();
    const first = await upload(id, JPEG(), "image/jpeg", { "idempotency-key": "foto-1" });
    const before = await photos();
    const again = await upload(id, JPEG(), "image/jpeg", { "idempotency-key": "foto-1" });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotency-replayed")).toBe("true");
    expect(await photos()).toBe(before);
    const other = await upload(id, PNG(), "image/png", { "idempotency-key": "foto-1" });
    expect(other.body.codice).toBe("chiave_idempotenza_riutilizzata");
  });

  test("each refusal has its code and writes nothing", async () => {
    const id = await difference();
    const before = await photos();
    const cases: [Promise<{ status: number; body: { codice: string; messaggio: string } }>, number, string][] = [
      [upload(id, JPEG(), "application/json"), 415, "tipo_contenuto_non_supportato"],
      [upload(id, JPEG(), "image/gif"), 415, "tipo_contenuto_non_supportato"],
      [upload(id, JPEG(), null), 415, "tipo_contenuto_non_supportato"],
      [upload(id, PNG(), "image/jpeg"), 422, "foto_non_valida"],
      [upload(id, JPEG(), "image/png"), 422, "foto_non_valida"],
      [upload(id, new Uint8Array(), "image/jpeg"), 422, "foto_non_valida"],
      [upload(id, JPEG(5 * 1024 * 1024 + 1), "image/jpeg"), 413, "richiesta_troppo_grande"],
      [upload(999_999, JPEG(), "image/jpeg"), 404, "non_trovato"],
      [upload("abc", JPEG(), "image/jpeg"), 422, "richiesta_non_valida"],
      [
        rest("POST", `/differenze-ricevimento/${id}/foto?x=1`, { key, rawBody: JPEG(), headers: { "content-type": "image/jpeg" } }),
        422,
        "filtro_non_valido",
      ],
      [upload(id, JPEG(), "image/jpeg", {}, readKey), 403, "permesso_negato"],
    ];
    for (const [call, status, codice] of cases) {
      const r = await call;
      expect({ status: r.status, codice: r.body.codice }).toEqual({ status, codice });
      expect(typeof r.body.messaggio).toBe("string");
    }
    expect(await photos()).toBe(before);
    // Exactly 5 MB is accepted.
    expect((await upload(id, JPEG(5 * 1024 * 1024), "image/jpeg")).status).toBe(201);
  });

  test("at most 5 per difference, under concurrency: 8 concurrent uploads store 5, three troppe_foto", async () => {
    const id = await difference();
    const results = await Promise.all(Array.from({ length: 8 }, () => upload(id, JPEG(), "image/jpeg")));
    const codes = results.map((r) => (r.status === 201 ? "ok" : r.body.codice)).sort();
    expect(codes).toEqual(["ok", "ok", "ok", "ok", "ok", "troppe_foto", "troppe_foto", "troppe_foto"]);
    const { rows } = await t.pool.query("SELECT array_agg(n ORDER BY n) AS n FROM foto_differenze WHERE differenza_id = $1", [id]);
    expect(rows[0].n).toEqual([1, 2, 3, 4, 5]);
  });

  test("GET of a missing photo or difference is 404", async () => {
    const id = await difference();
    expect((await download(id, 1)).status).toBe(404);
    expect((await download(999_999, 1)).status).toBe(404);
  });
});

describe("tRPC notices.addDifferencePhoto / differencePhoto (the UI)", () => {
  const user = (ruolo: "operatore" | "responsabile"): Actor => ({ kind: "utente", id: 1, username: ruolo, ruolo });

  test("an operator adds a photo in base64; a manager reads it back; an operator may not read", async () => {
    const id = await difference();
    const jpeg = JPEG(300);
    const added = await caller(t, user("operatore"), "trpc").notices.addDifferencePhoto({
      differenza: id,
      tipo: "image/jpeg",
      dati: Buffer.from(jpeg).toString("base64"),
    });
    expect(added).toMatchObject({ differenza: id, n: 1, dimensione: 300 });
    const read = await caller(t, user("responsabile"), "trpc").notices.differencePhoto({ differenza: id, n: 1 });
    expect(read).toEqual({ tipo: "image/jpeg", dati: Buffer.from(jpeg).toString("base64") });
    await expect(caller(t, user("operatore"), "trpc").notices.differencePhoto({ differenza: id, n: 1 })).rejects.toMatchObject({
      cause: { codice: "permesso_negato" },
    });
  });

  test("refusals: not base64, not the declared image, too large, unknown difference; nothing written", async () => {
    const id = await difference();
    const op = caller(t, user("operatore"), "trpc").notices;
    const before = await photos();
    const b64 = (b: Uint8Array) => Buffer.from(b).toString("base64");
    await expect(op.addDifferencePhoto({ differenza: id, tipo: "image/jpeg", dati: "non base64!" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      cause: { name: "ZodError" },
    });
    await expect(op.addDifferencePhoto({ differenza: id, tipo: "image/png", dati: b64(JPEG()) })).rejects.toMatchObject({
      cause: { codice: "foto_non_valida" },
    });
    await expect(op.addDifferencePhoto({ differenza: id, tipo: "image/jpeg", dati: b64(JPEG(5 * 1024 * 1024 + 1)) })).rejects.toMatchObject(
      {
        cause: { codice: "richiesta_troppo_grande" },
      },
    );
    await expect(op.addDifferencePhoto({ differenza: 999_999, tipo: "image/jpeg", dati: b64(JPEG()) })).rejects.toMatchObject({
      cause: { codice: "non_trovato" },
    });
    expect(await photos()).toBe(before);
  });
});

test("the OpenAPI document: the upload's body is the image, the read answers it, with their codes", async () => {
  const doc = (await rest("GET", "/openapi.json")).body;
  const post = doc.paths["/differenze-ricevimento/{id}/foto"].post;
  expect(Object.keys(post.requestBody.content).sort()).toEqual(["image/jpeg", "image/png"]);
  expect(Object.keys(post.responses)).toEqual(expect.arrayContaining(["201", "404", "413", "415", "422"]));
  const refusals = JSON.stringify(post.responses["422"]);
  for (const codice of ["foto_non_valida", "troppe_foto"]) expect(refusals).toContain(codice);
  expect(post.parameters.some((p: { name: string }) => p.name === "Idempotency-Key")).toBe(true);
  const get = doc.paths["/differenze-ricevimento/{id}/foto/{n}"].get;
  expect(Object.keys(get.responses["200"].content).sort()).toEqual(["image/jpeg", "image/png"]);
  expect(doc.paths["/differenze-ricevimento/tasso-riempimento"].get.parameters.map((p: { name: string }) => p.name).sort()).toEqual([
    "a",
    "da",
    "fornitore",
  ]);
});
