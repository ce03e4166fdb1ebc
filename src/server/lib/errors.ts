/**
 * Domain errors: services throw these with a stable `codice` from the contract (docs/api.md section 2);
 * one table maps each code to its HTTP status, for REST and for the UI alike.
 */
export const ERROR_STATUS = {
  json_non_valido: 400,
  chiave_idempotenza_non_valida: 400,
  non_autenticato: 401,
  permesso_negato: 403,
  non_trovato: 404,
  metodo_non_consentito: 405,
  idempotenza_in_corso: 409,
  // The key was settled as abandoned (idempotency.settle) before its request ran: never run under it.
  chiave_idempotenza_abbandonata: 409,
  arrivo_gia_annullato: 409,
  lotto_consumato: 409,
  // Cancelling an arrival whose location no longer holds the goods (docs/api.md section 11): the message says where they are.
  merce_spostata: 409,
  // Pallets (docs/api.md section 12).
  collo_gia_ricevuto: 409,
  // Cancelling an arrival whose row a return with riapri has already lowered (docs/api.md section 12).
  arrivo_reso: 409,
  collo_non_ricevuto: 409,
  collo_non_trovato: 404,
  // Putaway by SSCC (docs/api.md section 11): the pallet's receipt was already put away (or nothing of it is left in receiving).
  collo_gia_stoccato: 409,
  // Operator UI only (users administration).
  utente_esistente: 409,
  ultimo_amministratore: 409,
  richiesta_troppo_grande: 413,
  tipo_contenuto_non_supportato: 415,
  filtro_non_valido: 422,
  richiesta_non_valida: 422,
  chiave_idempotenza_riutilizzata: 422,
  troppe_righe: 422,
  magazzino_non_trovato: 422,
  operazione_non_trovata: 422,
  fornitore_non_trovato: 422,
  // A list's cursor above anything the service ever issued (docs/api.md section 9).
  cursore_non_valido: 422,
  // A location that holds stock, or is its warehouse's receiving location, cannot be deactivated (docs/api.md section 11).
  ubicazione_non_vuota: 422,
  troppe_richieste: 429,
  errore_interno: 500,
  servizio_non_disponibile: 503,
  // Row refusal codes: inside per-row outcomes, or 422 for a single-row POST /arrivi.
  articolo_non_trovato: 422,
  articolo_con_varianti: 422,
  articolo_ambiguo: 422,
  quantita_non_valida: 422,
  prezzo_non_valido: 422,
  lotto_obbligatorio: 422,
  lotto_non_previsto: 422,
  lotto_non_trovato: 422,
  lotto_insufficiente: 422,
  quantita_eccessiva: 422,
  riga_non_trovata: 422,
  riga_evasa: 422,
  articolo_ripetuto: 422,
  fornitore_diverso: 422,
  magazzino_diverso: 422,
  scadenza_diversa: 422,
  // Per-order refusals of POST /ordini-acquisto (docs/api.md section 9).
  articolo_non_attivo: 422,
  quantita_sotto_arrivata: 422,
  riga_con_arrivi: 422,
  ordine_evaso: 422,
  ordine_ripetuto: 422,
  numero_riga_ripetuto: 422,
  // Row refusal codes of the master-data upserts (docs/api.md section 9), inside per-row outcomes only.
  codice_non_valido: 422,
  codice_ripetuto: 422,
  campo_non_valido: 422,
  ean_in_uso: 422,
  gestione_lotti_bloccata: 422,
  modello_non_trovato: 422,
  // Row refusal codes of locations (docs/api.md section 11): the ledger's location rules and the warehouse switch.
  ubicazione_obbligatoria: 422,
  ubicazione_non_trovata: 422,
  ubicazione_non_prevista: 422,
  quantita_insufficiente_ubicazione: 422,
  ubicazione_ricevimento_mancante: 422,
  ubicazioni_in_uso: 422,
  giacenza_negativa: 422,
  // Labels and printers (docs/api.md section 13).
  stampante_esistente: 409,
  // A print job to a printer an administrator deactivated: it stays listed (attiva false) and receives nothing.
  stampante_disattivata: 422,
  // Per-notice refusals of POST /avvisi-spedizione, and the order upsert's riga_in_avviso (docs/api.md section 12).
  sscc_non_valido: 422,
  sscc_in_uso: 422,
  avviso_in_ricevimento: 422,
  avviso_ripetuto: 422,
  riga_in_avviso: 422,
  // Photos of a receiving difference (docs/api.md section 12): bytes that are not the declared image, a sixth photo.
  foto_non_valida: 422,
  troppe_foto: 422,
  // Reservations (docs/api.md section 14): per-reservation outcomes of POST /prenotazioni.
  riferimento_ripetuto: 422,
  prenotazione_chiusa: 422,
  cliente_non_trovato: 422,
  disponibilita_insufficiente: 422,
  lotto_non_disponibile: 422,
  // A write that names no reservation would leave less free than the reservations hold (docs/api.md section 14).
  quantita_prenotata: 422,
  // An unload of POST /movimenti naming a reservation (docs/api.md section 14): unknown, or being picked; and an
  // update of a reservation that would take a row below what is already shipped of it.
  prenotazione_non_trovata: 422,
  prenotazione_in_prelievo: 422,
  quantita_sotto_prelevata: 422,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ROW_ERROR_CODES = [
  "articolo_non_trovato",
  "articolo_con_varianti",
  "articolo_ambiguo",
  "quantita_non_valida",
  "prezzo_non_valido",
  "lotto_obbligatorio",
  "lotto_non_previsto",
  "lotto_non_trovato",
  "lotto_insufficiente",
  "quantita_eccessiva",
  "riga_non_trovata",
  "riga_evasa",
  "articolo_ripetuto",
  "fornitore_diverso",
  "magazzino_diverso",
  "scadenza_diversa",
  "fornitore_non_trovato",
  "magazzino_non_trovato",
  "ubicazione_non_vuota",
  "articolo_non_attivo",
  "quantita_sotto_arrivata",
  "riga_con_arrivi",
  "ordine_evaso",
  "ordine_ripetuto",
  "numero_riga_ripetuto",
  "codice_non_valido",
  "codice_ripetuto",
  "campo_non_valido",
  "ean_in_uso",
  "gestione_lotti_bloccata",
  "modello_non_trovato",
  "ubicazione_obbligatoria",
  "ubicazione_non_trovata",
  "ubicazione_non_prevista",
  "quantita_insufficiente_ubicazione",
  "ubicazione_ricevimento_mancante",
  "ubicazioni_in_uso",
  "giacenza_negativa",
  "sscc_non_valido",
  "sscc_in_uso",
  "avviso_in_ricevimento",
  "avviso_ripetuto",
  "riga_in_avviso",
  "riferimento_ripetuto",
  "prenotazione_chiusa",
  "cliente_non_trovato",
  "disponibilita_insufficiente",
  "lotto_non_disponibile",
  "quantita_prenotata",
  "prenotazione_non_trovata",
  "prenotazione_in_prelievo",
  "quantita_sotto_prelevata",
] as const satisfies readonly ErrorCode[];
export type RowErrorCode = (typeof ROW_ERROR_CODES)[number];

export interface FieldProblem {
  campo: string;
  messaggio: string;
}

/** The contract's error body. */
export interface ErrorBody {
  codice: ErrorCode;
  messaggio: string;
  campo?: string;
  dettagli?: FieldProblem[];
  richiesta?: string;
}

/**
 * What a refusal tells its caller beyond the body, in the domain's words: the transport (trpc/errors.ts,
 * `responseHeaders`) turns each into the response's headers, so no service names an HTTP header.
 */
export interface RefusalHints {
  /** Seconds to wait before trying again (a limit reached, a key busy, the database away). */
  retryAfterSeconds?: number;
  /** The caller must present an API key: the answer challenges it to. */
  authChallenge?: boolean;
  /** The methods the path does accept, for a method it refuses. */
  allow?: readonly string[];
  /** The refusal is a stored one, answered again under its idempotency key. */
  replayed?: boolean;
}

export class DomainError extends Error {
  readonly codice: ErrorCode;
  readonly campo?: string;
  readonly dettagli?: FieldProblem[];
  readonly hints: RefusalHints;

  constructor(codice: ErrorCode, messaggio: string, opts: { campo?: string; dettagli?: FieldProblem[] } & RefusalHints = {}) {
    super(messaggio);
    this.name = "DomainError";
    this.codice = codice;
    this.campo = opts.campo;
    this.dettagli = opts.dettagli;
    const { campo: _c, dettagli: _d, ...hints } = opts;
    this.hints = hints;
  }

  get status(): number {
    return ERROR_STATUS[this.codice];
  }

  toBody(): ErrorBody {
    const body: ErrorBody = { codice: this.codice, messaggio: this.message };
    if (this.campo !== undefined) body.campo = this.campo;
    if (this.dettagli !== undefined) body.dettagli = this.dettagli;
    return body;
  }
}

/** A refusal of one row of a multi-row request: reported in that row's outcome, never blocking the others. */
export class RowError extends Error {
  constructor(
    readonly codice: RowErrorCode,
    messaggio: string,
    /** The field of the row at fault, when one is (`campo_non_valido` of an order: `data`, `righe[0].quantita`). */
    readonly campo?: string,
  ) {
    super(messaggio);
    this.name = "RowError";
  }
  toBody(): { codice: RowErrorCode; messaggio: string; campo?: string } {
    return this.campo === undefined
      ? { codice: this.codice, messaggio: this.message }
      : { codice: this.codice, messaggio: this.message, campo: this.campo };
  }
}
