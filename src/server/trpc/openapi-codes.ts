import { ERROR_STATUS, type ErrorCode, type RowErrorCode } from "../lib/errors";
import { MAX_ALIGNMENT_ROWS } from "../modules/alignment/alignment.schemas";
import { MAX_ARRIVAL_ROWS } from "../modules/arrivals/arrivals.schemas";
import { MAX_LOCATION_ROWS } from "../modules/catalogue/locations.schemas";
import { MAX_UPSERT_ROWS } from "../modules/catalogue/master-data.schemas";
import { MAX_MOVEMENT_ROWS } from "../modules/movements/movements.schemas";
import { MAX_NOTICES_PER_CALL } from "../modules/notices/notices.schemas";
import { MAX_RETURN_ROWS } from "../modules/notices/returns.schemas";
import { MAX_ORDER_ROWS_PER_CALL, MAX_ORDERS_PER_CALL } from "../modules/orders/orders.schemas";
import { MAX_RESERVATION_ROWS_PER_CALL, MAX_RESERVATIONS_PER_CALL } from "../modules/reservations/reservations.schemas";

/**
 * Which error `codice` each /api/v1 operation can answer, for the OpenAPI document (docs/api.md section 2: "the
 * OpenAPI document enumerates every code of every endpoint"). One table keyed by "METHOD path", beside the
 * document rather than in each procedure's meta: the codes are the document's concern, they read against
 * docs/api.md in one place, and five routers that other work edits stay untouched. An operation missing from the
 * table still gets the codes its method, path and meta imply (`defaultCodes`); adding its own is one entry.
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

/** A row's location (docs/api.md section 11): every writer of stock resolves it (ledger/locations.service.ts). */
const LOCATION_ROWS = [
  "ubicazione_obbligatoria",
  "ubicazione_non_trovata",
  "ubicazione_non_prevista",
  "quantita_insufficiente_ubicazione",
] as const satisfies readonly RowErrorCode[];

/** The refusals of switching a warehouse's `gestione_ubicazioni` (ledger/locations-switch.service.ts): POST /magazzini rows. */
const LOCATION_SWITCH_ROWS = [
  "ubicazione_ricevimento_mancante",
  "ubicazioni_in_uso",
  "giacenza_negativa",
] as const satisfies readonly RowErrorCode[];

export const OPERATION_CODES: Readonly<Record<string, OperationCodes>> = {
  "POST /movimenti": {
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
    ],
    maxItems: { righe: MAX_MOVEMENT_ROWS },
  },
  "GET /articoli/{id}/lotti": { codes: ["magazzino_non_trovato"] },
  "POST /arrivi/cerca": { codes: ["fornitore_non_trovato", "magazzino_non_trovato"] },
  // A single row is refused as the request, with the row's code (docs/api.md section 2).
  "POST /arrivi": {
    codes: ["magazzino_non_trovato", "troppe_righe", ...ARRIVAL_ROWS],
    // A malformed row of several (lib/rows.ts); one row malformed is the call's richiesta_non_valida.
    rows: ["campo_non_valido", ...ARRIVAL_ROWS],
    maxItems: { righe: MAX_ARRIVAL_ROWS },
  },
  "POST /arrivi/{id}/annulla": { codes: ["arrivo_gia_annullato", "lotto_consumato", "merce_spostata", "arrivo_reso"] },
  "POST /giacenze/allinea": {
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
  "GET /disponibilita": { codes: ["magazzino_non_trovato", "non_trovato"] },
  "GET /giacenze-ubicazioni": { codes: ["magazzino_non_trovato"] },
  "GET /articoli/{id}/ubicazioni": { codes: ["magazzino_non_trovato"] },
  "GET /da-stoccare": { codes: ["magazzino_non_trovato"] },
  "POST /articoli": {
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
  "POST /fornitori": { codes: ["troppe_righe"], rows: UPSERT_ROWS, maxItems: { fornitori: MAX_UPSERT_ROWS } },
  "POST /magazzini": {
    codes: ["troppe_righe"],
    // The locations settings and the switch (docs/api.md section 11).
    rows: [...UPSERT_ROWS, "ubicazione_non_trovata", ...LOCATION_SWITCH_ROWS],
    maxItems: { magazzini: MAX_UPSERT_ROWS },
  },
  "POST /ubicazioni": {
    codes: ["troppe_righe"],
    rows: [...UPSERT_ROWS, "magazzino_non_trovato", "ubicazione_non_vuota"],
    maxItems: { ubicazioni: MAX_LOCATION_ROWS },
  },
  "GET /ubicazioni": { codes: ["magazzino_non_trovato"] },
  "POST /clienti": { codes: ["troppe_righe"], rows: UPSERT_ROWS, maxItems: { clienti: MAX_UPSERT_ROWS } },
  "POST /ordini-acquisto": {
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
  "POST /ordini-acquisto/{id}/chiudi": { codes: ["riga_non_trovata"] },
  // A replay from a sequence above any event ever issued (docs/api.md section 9, as for a stored cursor).
  "POST /webhook/{id}/riprova": { codes: ["cursore_non_valido"] },
  // Labels and printers (docs/api.md section 13).
  "GET /etichette/lotto": { codes: ["articolo_non_trovato"] },
  "GET /etichette/collo/{sscc}": { codes: ["collo_non_trovato", "sscc_non_valido"] },
  "GET /etichette/ubicazione": { codes: ["magazzino_non_trovato", "ubicazione_non_trovata", "troppe_righe"] },
  "POST /stampanti/{id}/stampa": {
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
  "POST /avvisi-spedizione": {
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
  "POST /differenze-ricevimento/{id}/foto": { codes: ["foto_non_valida", "troppe_foto"] },
  "POST /colli/{sscc}/ricevi": {
    codes: ["collo_non_trovato", "sscc_non_valido", "collo_gia_ricevuto", "magazzino_non_trovato"],
    // A malformed difference refuses the pallet row it names (lib/rows.ts).
    rows: ["campo_non_valido", ...ARRIVAL_ROWS],
  },
  "POST /colli/{sscc}/annulla": {
    codes: ["collo_non_trovato", "sscc_non_valido", "collo_non_ricevuto", "arrivo_gia_annullato", "lotto_consumato", "arrivo_reso"],
  },
  "POST /resi-fornitore": {
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
      // The unload's location checks (docs/api.md section 11), as on any unload.
      ...LOCATION_ROWS,
    ],
    maxItems: { righe: MAX_RETURN_ROWS },
  },
  // Reservations (docs/api.md section 14).
  "POST /prenotazioni": {
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
    ],
    maxItems: { prenotazioni: MAX_RESERVATIONS_PER_CALL, "prenotazioni.righe": MAX_RESERVATION_ROWS_PER_CALL },
  },
  "POST /prenotazioni/{id}/annulla": { codes: ["prenotazione_chiusa", "riga_non_trovata"] },
  "GET /prenotazioni": {},
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

/** The operation's refusal codes by HTTP status (each list in the order written), its row codes and its array limits. */
export function operationCodes(op: DefaultInputs): {
  byStatus: Map<number, string[]>;
  rows: readonly string[];
  maxItems: Readonly<Record<string, number>>;
} {
  const entry = OPERATION_CODES[`${op.method.toUpperCase()} ${op.path}`] ?? {};
  const byStatus = new Map<number, string[]>();
  for (const code of [...defaultCodes(op), ...(entry.codes ?? [])]) {
    const status = (ERROR_STATUS as Record<string, number>)[code];
    if (status === undefined) throw new Error(`openapi-codes: unknown code ${code}`);
    const list = byStatus.get(status) ?? [];
    if (!list.includes(code)) list.push(code);
    byStatus.set(status, list);
  }
  return { byStatus, rows: entry.rows ?? [], maxItems: entry.maxItems ?? {} };
}
