import { ERROR_STATUS, type ErrorCode, type RowErrorCode } from "../lib/errors";
import { MAX_ALIGNMENT_ROWS } from "../modules/alignment/alignment.schemas";
import { MAX_ARRIVAL_ROWS } from "../modules/arrivals/arrivals.schemas";
import { MAX_LOCATION_ROWS } from "../modules/locations/locations.schemas";
import { MAX_UPSERT_ROWS } from "../lib/upsert-rows";
import { MAX_MOVEMENT_ROWS } from "../modules/movements/movements.schemas";
import { MAX_NOTICES_PER_CALL } from "../modules/notices/notices.schemas";
import { MAX_RETURN_ROWS } from "../modules/returns/returns.schemas";
import { MAX_ORDER_ROWS_PER_CALL, MAX_ORDERS_PER_CALL } from "../modules/orders/orders.schemas";
import { MAX_RESERVATION_ROWS_PER_CALL, MAX_RESERVATIONS_PER_CALL } from "../modules/reservations/reservations.schemas";

/**
 * Which error `codice` each procedure of /api/v1 can answer, for the OpenAPI document (docs/api.md section 2: "the
 * OpenAPI document enumerates every code of every endpoint"), and through it for the tests that hold the
 * service to it (e2e/reliability/hostile.test.ts checks every answer against the document's enum). One table
 * keyed by the procedure's path in the root router (`movements.write`), not by its REST method and path: a
 * route the meta renames keeps its codes, and an entry for a procedure that is gone fails openapi.test.ts.
 * Beside the document rather than in each procedure's meta: the codes read against docs/api.md in one place.
 * A procedure missing from the table still gets the codes its method, path and meta imply (`defaultCodes`);
 * adding its own is one entry.
 */

export interface OperationCodes {
  /** Codes of a refusal of the whole request, beyond the defaults; the status comes from ERROR_STATUS. */
  codes?: readonly ErrorCode[];
  /** Codes of a refused row, in the success answer's per-row outcomes (`errore.codice`). */
  rows?: readonly RowErrorCode[];
  /** `maxItems` of the request body's arrays (docs/api.md section 8), by property path (`ordini.righe`: each order's rows). */
  maxItems?: Readonly<Record<string, number>>;
}

const UPSERT_ROWS = ["codice_non_valido", "codice_ripetuto", "campo_non_valido"] as const satisfies readonly RowErrorCode[];

const ARRIVAL_ROWS = [
  "riga_non_trovata",
  "riga_evasa",
  "articolo_non_trovato",
  "quantita_non_valida",
  "quantita_eccessiva",
  "prezzo_non_valido",
  "lotto_obbligatorio",
  "lotto_non_previsto",
  "scadenza_diversa",
  "fornitore_diverso",
  "magazzino_diverso",
  // Warehouses with locations (docs/api.md section 11).
  "ubicazione_non_trovata",
  "ubicazione_non_prevista",
] as const satisfies readonly RowErrorCode[];

/** A row's location (docs/api.md section 11): every writer of stock resolves it (ledger/location-balances.service.ts). */
const LOCATION_ROWS = [
  "ubicazione_obbligatoria",
  "ubicazione_non_trovata",
  "ubicazione_non_prevista",
  "quantita_insufficiente_ubicazione",
] as const satisfies readonly RowErrorCode[];

/** The refusals of switching a warehouse's `gestione_ubicazioni` (ledger/location-switch.service.ts): POST /magazzini rows. */
const LOCATION_SWITCH_ROWS = [
  "ubicazione_ricevimento_mancante",
  "ubicazioni_in_uso",
  "giacenza_negativa",
] as const satisfies readonly RowErrorCode[];

export const PROCEDURE_CODES: Readonly<Record<string, OperationCodes>> = {
  "movements.write": {
    codes: ["magazzino_non_trovato", "operazione_non_trovata", "troppe_righe"],
    rows: [
      "campo_non_valido",
      "articolo_non_trovato",
      "articolo_con_varianti",
      "articolo_ambiguo",
      "quantita_non_valida",
      "prezzo_non_valido",
      "lotto_obbligatorio",
      "lotto_non_previsto",
      "lotto_non_trovato",
      "lotto_insufficiente",
      "scadenza_diversa",
      ...LOCATION_ROWS,
      // An unload or a transfer out that would leave less free than the reservations hold (docs/api.md section 14).
      "quantita_prenotata",
      // An unload naming the reservation whose hold it consumes (section 14).
      "prenotazione_non_trovata",
      "prenotazione_chiusa",
      "prenotazione_in_prelievo",
      "magazzino_diverso",
    ],
    maxItems: { righe: MAX_MOVEMENT_ROWS },
  },
  "lots.listOpen": { codes: ["magazzino_non_trovato"] },
  "arrivals.search": { codes: ["fornitore_non_trovato", "magazzino_non_trovato"] },
  // A single row is refused as the request, with the row's code (docs/api.md section 2).
  "arrivals.register": {
    codes: ["magazzino_non_trovato", "troppe_righe", ...ARRIVAL_ROWS],
    // A malformed row of several (lib/rows.ts); one row malformed is the call's richiesta_non_valida.
    rows: ["campo_non_valido", ...ARRIVAL_ROWS],
    maxItems: { righe: MAX_ARRIVAL_ROWS },
  },
  "arrivals.cancel": { codes: ["arrivo_gia_annullato", "lotto_consumato", "merce_spostata", "arrivo_reso"] },
  "alignment.align": {
    // The top-level `ubicazione` is the envelope's: its fault refuses the call (docs/api.md section 11).
    codes: ["magazzino_non_trovato", "troppe_righe", "ubicazione_non_trovata", "ubicazione_non_prevista"],
    rows: [
      "campo_non_valido",
      "articolo_non_trovato",
      "articolo_con_varianti",
      "quantita_non_valida",
      "lotto_obbligatorio",
      "lotto_non_previsto",
      "articolo_ripetuto",
      "ubicazione_obbligatoria",
      "ubicazione_non_trovata",
      "ubicazione_non_prevista",
    ],
    maxItems: { righe: MAX_ALIGNMENT_ROWS },
  },
  // `articolo` or `codice` naming no article (docs/api.md section 14): 404.
  "availability.list": { codes: ["magazzino_non_trovato", "non_trovato"] },
  "locationsStock.list": { codes: ["magazzino_non_trovato"] },
  "locationsStock.ofArticle": { codes: ["magazzino_non_trovato"] },
  "locationsStock.awaitingPutaway": { codes: ["magazzino_non_trovato"] },
  "masterData.upsertArticles": {
    codes: ["troppe_righe"],
    rows: [
      ...UPSERT_ROWS,
      "ean_in_uso",
      "gestione_lotti_bloccata",
      "modello_non_trovato",
      // ubicazioni_preferite (docs/api.md section 11).
      "magazzino_non_trovato",
      "ubicazione_non_trovata",
    ],
    maxItems: { articoli: MAX_UPSERT_ROWS },
  },
  "masterData.upsertSuppliers": { codes: ["troppe_righe"], rows: UPSERT_ROWS, maxItems: { fornitori: MAX_UPSERT_ROWS } },
  "masterData.upsertWarehouses": {
    codes: ["troppe_righe"],
    // The locations settings and the switch (docs/api.md section 11).
    rows: [...UPSERT_ROWS, "ubicazione_non_trovata", ...LOCATION_SWITCH_ROWS],
    maxItems: { magazzini: MAX_UPSERT_ROWS },
  },
  "masterData.upsertLocations": {
    codes: ["troppe_righe"],
    rows: [...UPSERT_ROWS, "magazzino_non_trovato", "ubicazione_non_vuota"],
    maxItems: { ubicazioni: MAX_LOCATION_ROWS },
  },
  "feeds.locations": { codes: ["magazzino_non_trovato"] },
  "clientsUpsert.upsert": { codes: ["troppe_righe"], rows: UPSERT_ROWS, maxItems: { clienti: MAX_UPSERT_ROWS } },
  "orders.upsert": {
    codes: ["troppe_righe"],
    rows: [
      "campo_non_valido",
      "fornitore_non_trovato",
      "magazzino_non_trovato",
      "articolo_non_trovato",
      "articolo_con_varianti",
      "articolo_non_attivo",
      "quantita_non_valida",
      "prezzo_non_valido",
      "quantita_sotto_arrivata",
      "riga_con_arrivi",
      "ordine_evaso",
      "ordine_ripetuto",
      "numero_riga_ripetuto",
      "riga_in_avviso",
    ],
    // 500 rows in all: one order can hold them all.
    maxItems: { ordini: MAX_ORDERS_PER_CALL, "ordini.righe": MAX_ORDER_ROWS_PER_CALL },
  },
  "orders.close": { codes: ["riga_non_trovata"] },
  // A replay from a sequence above any event ever issued (docs/api.md section 9, as for a stored cursor).
  "webhooksRest.replay": { codes: ["cursore_non_valido"] },
  // Labels and printers (docs/api.md section 13).
  "labels.lot": { codes: ["articolo_non_trovato"] },
  "labels.pallet": { codes: ["collo_non_trovato", "sscc_non_valido"] },
  "labels.location": { codes: ["magazzino_non_trovato", "ubicazione_non_trovata", "troppe_righe"] },
  "printers.print": {
    codes: [
      "articolo_non_trovato",
      "magazzino_non_trovato",
      "ubicazione_non_trovata",
      "riga_non_trovata",
      "collo_non_trovato",
      "sscc_non_valido",
      "troppe_righe",
      "stampante_disattivata",
    ],
  },
  "notices.upsert": {
    codes: ["troppe_righe"],
    rows: [
      "campo_non_valido",
      "fornitore_non_trovato",
      "magazzino_non_trovato",
      "sscc_non_valido",
      "sscc_in_uso",
      "riga_non_trovata",
      "fornitore_diverso",
      "magazzino_diverso",
      "lotto_obbligatorio",
      "lotto_non_previsto",
      "quantita_non_valida",
      "avviso_in_ricevimento",
      "avviso_ripetuto",
    ],
    maxItems: { avvisi: MAX_NOTICES_PER_CALL },
  },
  // Photos of a difference (docs/api.md section 12): 415 a type that is not JPEG or PNG, 413 over 5 MB.
  "notices.addPhoto": { codes: ["foto_non_valida", "troppe_foto"] },
  "notices.receive": {
    codes: ["collo_non_trovato", "sscc_non_valido", "collo_gia_ricevuto", "magazzino_non_trovato"],
    // A malformed difference refuses the pallet row it names (lib/rows.ts).
    rows: ["campo_non_valido", ...ARRIVAL_ROWS],
  },
  "notices.cancel": {
    codes: ["collo_non_trovato", "sscc_non_valido", "collo_non_ricevuto", "arrivo_gia_annullato", "lotto_consumato", "arrivo_reso"],
  },
  "notices.returnToSupplier": {
    codes: ["fornitore_non_trovato", "magazzino_non_trovato", "troppe_righe"],
    rows: [
      "campo_non_valido",
      "articolo_non_trovato",
      "articolo_con_varianti",
      "articolo_ambiguo",
      "quantita_non_valida",
      "lotto_obbligatorio",
      "lotto_non_previsto",
      "lotto_non_trovato",
      "lotto_insufficiente",
      "riga_non_trovata",
      "fornitore_diverso",
      "magazzino_diverso",
      "quantita_eccessiva",
      // The unload's location checks (docs/api.md section 11), and the holds (section 14), as on any unload.
      ...LOCATION_ROWS,
      "quantita_prenotata",
    ],
    maxItems: { righe: MAX_RETURN_ROWS },
  },
  // Reservations (docs/api.md section 14).
  "reservations.upsert": {
    codes: ["troppe_righe"],
    rows: [
      "campo_non_valido",
      "riferimento_ripetuto",
      "prenotazione_chiusa",
      "cliente_non_trovato",
      "magazzino_non_trovato",
      "disponibilita_insufficiente",
      "lotto_non_disponibile",
      "numero_riga_ripetuto",
      "articolo_non_trovato",
      "articolo_con_varianti",
      "articolo_ambiguo",
      "articolo_non_attivo",
      "quantita_non_valida",
      "prezzo_non_valido",
      "lotto_non_previsto",
      // A row below what unloads naming the reservation already shipped of it.
      "quantita_sotto_prelevata",
    ],
    maxItems: { prenotazioni: MAX_RESERVATIONS_PER_CALL, "prenotazioni.righe": MAX_RESERVATION_ROWS_PER_CALL },
  },
  "reservations.cancel": { codes: ["prenotazione_chiusa", "riga_non_trovata"] },
};

export interface DefaultInputs {
  method: string;
  path: string;
  idempotent: boolean;
  /** The query parameters' names. */
  query: readonly string[];
}

/** What an operation can answer by its method, path and meta alone. */
function defaultCodes({ method, path, idempotent, query }: DefaultInputs): string[] {
  const codes: string[] = [
    "non_autenticato",
    "permesso_negato",
    "metodo_non_consentito",
    "troppe_richieste",
    "errore_interno",
    "servizio_non_disponibile",
  ];
  // Every operation refuses an unknown or malformed query parameter (a POST takes none).
  codes.push("filtro_non_valido");
  // A DELETE reads its body too: `{}` is no body, anything else is refused like a POST's body.
  if (method !== "get") codes.push("json_non_valido", "richiesta_troppo_grande", "tipo_contenuto_non_supportato", "richiesta_non_valida");
  if (path.includes("{")) codes.push("non_trovato");
  if (idempotent)
    codes.push(
      "chiave_idempotenza_non_valida",
      "idempotenza_in_corso",
      "chiave_idempotenza_abbandonata",
      "chiave_idempotenza_riutilizzata",
    );
  // A stored cursor above anything ever issued (docs/api.md section 9).
  if (query.includes("dopo") || query.includes("modificati_dopo")) codes.push("cursore_non_valido");
  return codes;
}

/**
 * The refusal codes of the operation of `procedure` (its path in the root router) by HTTP status (each list in
 * the order written), its row codes and its array limits.
 */
export function operationCodes(op: DefaultInputs & { procedure?: string }): {
  byStatus: Map<number, string[]>;
  rows: readonly string[];
  maxItems: Readonly<Record<string, number>>;
} {
  const entry = (op.procedure !== undefined && PROCEDURE_CODES[op.procedure]) || {};
  const byStatus = new Map<number, string[]>();
  for (const code of [...defaultCodes(op), ...(entry.codes ?? [])]) {
    const status = (ERROR_STATUS as Record<string, number>)[code];
    if (status === undefined) throw new Error(`procedure-codes: unknown code ${code}`);
    const list = byStatus.get(status) ?? [];
    if (!list.includes(code)) list.push(code);
    byStatus.set(status, list);
  }
  return { byStatus, rows: entry.rows ?? [], maxItems: entry.maxItems ?? {} };
}
