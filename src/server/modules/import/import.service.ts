import type { Db, PrismaClient, Tx } from "../../db/client";
import { inTransaction } from "../../db/transaction";
import { DomainError, type FieldProblem } from "../../lib/errors";
import type { Actor } from "../auth/actor";
import { NUL_MESSAGE, nulPaths } from "../../lib/nul";
import { upsertClients } from "../clients/clients-upsert.service";
import { upsertPurchaseOrders } from "../orders/orders-upsert.service";
import { MAX_ORDER_ROWS_PER_CALL, MAX_ORDERS_PER_CALL, type OrderUpsertInput } from "../orders/orders.schemas";
import { checkFile, emptyState, loadImportState, type ArticleTarget, type ImportState } from "./import-check";
import { parseFile, pathOf, sortByPath, type Located, type ParsedFile, type ParsedOrder, type Problems } from "./import-parse";
import type { ImportIds } from "../catalogue/import.schemas";
import { writeImportLocations } from "./import-locations";
import { idsOf, lockForImport, writeArticles, writeNamed } from "../catalogue/master-data.service";

/**
 * Master data import (docs/api.md section 6): warehouses (and their locations, section 11), articles with
 * variants, suppliers, clients and purchase orders, referenced by code (orders by number), upserted in one
 * transaction.
 *
 * The whole file is checked before anything is written, and every problem is reported with its path
 * in the file (`articoli[3].varianti[0].ean`), so the operator fixes the file in one round.
 *
 * A re-import is an upsert by code, and importing the same file twice changes nothing. With changed
 * values:
 * - descriptive fields (names, descriptions, EAN, cost, client contact fields) are updated; a field
 *   absent from the file is left as it is, `null` clears it;
 * - an order whose number already exists (for its supplier) is replaced as POST /ordini-acquisto replaces
 *   it (its rows are numbered by their position in the file: `numero_riga`); a change the upsert refuses
 *   (an `evaso` order, a quantity below what arrived, a row with arrivals removed or moved) fails the
 *   import, with its path in the file;
 * - variants inherit lots, unit and cost from their template, so changing them on the template changes
 *   every variant, listed in the file or not;
 * - the import never deletes: variants missing from the file stay, a template stays a template;
 * - structure, lots and unit follow the ledger: once an article has movements its `gestione_lotti` and
 *   `unita` cannot change, it cannot become a template or move to another template; an article on order rows
 *   cannot become a template either (a template is never stocked nor ordered). A variant listed as a
 *   stand-alone article is refused: the file must list it under its template.
 *
 * The import only orchestrates: parse the file (import-parse.ts), load what the database holds of it
 * and check it as a whole (import-check.ts), then hand each entity to its writer, the same ones the REST
 * upserts (docs/api.md section 9) use: warehouses, suppliers and articles to master-data.service.ts, clients
 * to the clients module, purchase orders to the orders module.
 */

interface ImportPlan {
  file: ParsedFile;
  state: ImportState;
  articles: ArticleTarget[];
}

interface Analysis {
  problemi: Problems;
  plan: ImportPlan;
}

export interface ImportOutcome {
  ids: ImportIds;
}

/**
 * Checks a whole file against itself and the database; writes nothing. What only the write decides (an
 * existing order the orders' upsert refuses to change) is not known here: the import reports it.
 */
export async function validateImport(data: unknown, db: Db): Promise<{ problemi: FieldProblem[] }> {
  const { problemi } = await analyseImport(db, data);
  return { problemi };
}

/**
 * Validates, then writes everything in one transaction. Any problem: a DomainError whose `dettagli`
 * list every problem (`campo` is the path in the file), and nothing is written.
 */
export async function importMasterData(prisma: PrismaClient, data: unknown, opts: ImportOptions): Promise<ImportOutcome> {
  // A large catalogue takes longer than a request: the transaction gets minutes, not seconds.
  return inTransaction(prisma, (tx) => importInTransaction(tx, data, opts), { timeout: 300_000 });
}

/**
 * `actor`: the author of the operation a warehouse's `gestione_ubicazioni` switch writes when it moves stock (the
 * demo's key); the command line has none, and switches only warehouses that hold nothing (import-locations.ts).
 */
interface ImportOptions {
  timeZone: string;
  actor?: Actor;
}

/** The import inside a caller's transaction (the demo seeding imports and writes stock in one). */
export async function importInTransaction(tx: Tx, data: unknown, opts: ImportOptions): Promise<ImportOutcome> {
  await lockForImport(tx);
  const { problemi, plan } = await analyseImport(tx, data);
  if (problemi.length > 0) throw fileProblems(problemi);
  return { ids: await writeImport(tx, plan, opts) };
}

/** Every problem of the file in one error (`campo` is the path in the file); the transaction rolls back. */
const fileProblems = (problemi: Problems) =>
  new DomainError(
    "richiesta_non_valida",
    `Il file contiene ${problemi.length === 1 ? "un problema" : `${problemi.length} problemi`}: nulla è stato importato. Correggerli e ripetere l'importazione.`,
    { dettagli: problemi },
  );

async function analyseImport(db: Db, data: unknown): Promise<Analysis> {
  const problemi: Problems = [];
  const file = parseFile(data, problemi);
  // Text with U+0000 cannot even be looked up in the database: the file is refused before reading it.
  const nul = nulPaths(data);
  if (nul.length > 0) {
    problemi.push(...nul.map((path) => ({ campo: pathOf("", path), messaggio: NUL_MESSAGE })));
    return { problemi: sortByPath(problemi), plan: { file, state: emptyState(), articles: [] } };
  }
  const state = await loadImportState(db, file);
  const articles = checkFile(file, state, problemi);
  return { problemi: sortByPath(problemi), plan: { file, state, articles } };
}

async function writeImport(tx: Tx, plan: ImportPlan, opts: ImportOptions): Promise<ImportIds> {
  const { timeZone } = opts;
  const { file, state } = plan;
  const values = <T>(items: Located<T>[]) => items.map((i) => i.value);

  // The writers of the REST upserts: one write path for a file and for REST.
  const magazzini = idsOf(await writeNamed(tx, "magazzini", values(file.magazzini), state.magazzini));
  const located = await writeImportLocations(tx, file, { actor: opts.actor ?? null, timeZone });
  if (located.length > 0) throw fileProblems(sortByPath(located));
  const fornitori = idsOf(await writeNamed(tx, "fornitori", values(file.fornitori), state.fornitori));
  const articleIds = idsOf(
    await writeArticles(
      tx,
      plan.articles.map((a) => a.row),
      state.articoli,
    ),
  );
  const clienti = await upsertClients(tx, values(file.clienti), state.clienti, { timeZone });
  const ordini = await writeOrders(tx, file.ordini);

  const listed = (items: Located<{ codice: string }>[], ids: Record<string, number>) =>
    Object.fromEntries(items.map((i) => [i.value.codice, ids[i.value.codice]!]));
  return {
    magazzini: listed(file.magazzini, magazzini),
    articoli: listed(
      file.articoli.flatMap((a) => [a, ...a.varianti]),
      articleIds,
    ),
    fornitori: listed(file.fornitori, fornitori),
    ordini,
    clienti: listed(file.clienti, clienti),
  };
}

/**
 * The file's orders through the service of POST /ordini-acquisto, in calls within its limits, in file
 * order: a row's `numero_riga` is its position in the file. Any order the upsert refuses fails the whole
 * import (the caller's transaction rolls back), every refusal listed with its path in the file.
 */
async function writeOrders(tx: Tx, orders: ParsedOrder[]): Promise<Record<string, number>> {
  const ids: Record<string, number> = {};
  const refused: Problems = [];
  for (const chunk of orderChunks(orders)) {
    const out = await upsertPurchaseOrders(tx, { ordini: chunk.map(toUpsert) });
    for (const r of out.righe) {
      // A refused order carries its error, any other its id.
      if (r.esito === "rifiutato") refused.push(inFile(r.errore!.messaggio, chunk, chunk[r.indice]!));
      else ids[r.numero!] = r.id!;
    }
  }
  if (refused.length > 0) throw fileProblems(sortByPath(refused));
  return ids;
}

/** An order of the file as the upsert takes it: quantities back to JSON numbers (they came from one), prices as strings. */
const toUpsert = (o: ParsedOrder): OrderUpsertInput => ({
  ...o.value,
  righe: o.righe.map((r, i) => ({
    numero_riga: i + 1,
    articolo: r.value.articolo,
    quantita: Number(r.value.quantita),
    prezzo: r.value.prezzo,
  })),
});

/**
 * Consecutive orders, at most MAX_ORDERS_PER_CALL and MAX_ORDER_ROWS_PER_CALL rows a call (an order
 * never has more rows than a call: import-check refuses it).
 */
function orderChunks(orders: ParsedOrder[]): ParsedOrder[][] {
  const chunks: ParsedOrder[][] = [];
  let rowCount = 0;
  for (const o of orders) {
    const last = chunks.at(-1);
    if (!last || last.length === MAX_ORDERS_PER_CALL || rowCount + o.righe.length > MAX_ORDER_ROWS_PER_CALL) {
      chunks.push([o]);
      rowCount = o.righe.length;
    } else {
      last.push(o);
      rowCount += o.righe.length;
    }
  }
  return chunks;
}

/**
 * A refusal of the upsert as a problem of the file: its message names the order (and the row) by its
 * index within its call, `ordini[k]` or `ordini[k].righe[j]`: each becomes the path in the file, and that
 * path is the problem's `campo` (the order's own path when the message names no path).
 */
function inFile(messaggio: string, chunk: ParsedOrder[], order: ParsedOrder) {
  let campo = order.at;
  const text = messaggio.replace(/\bordini\[(\d+)\](?:\.righe\[(\d+)\])?/g, (found: string, k: string, j: string | undefined) => {
    const o = chunk[Number(k)];
    const at = j === undefined ? o?.at : o?.righe[Number(j)]?.at;
    if (at === undefined) return found;
    if (o === order) campo = at;
    return at;
  });
  return { campo, messaggio: text };
}
