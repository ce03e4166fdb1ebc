import { z } from "zod";
import { TIPI_UBICAZIONE } from "../../../lib/domain-lists";
import { MAX_UPSERT_ROWS } from "../../lib/upsert-rows";
import { shortText, typeError } from "../../lib/zod";

/**
 * POST /ubicazioni (docs/api.md section 11): locations upserted by (warehouse code, location code), with the
 * per-row outcomes and refusals of the other master-data upserts (section 9). As there, the request schema
 * documents the fields and passes each row on as it came: the service checks them row by row.
 */

export const MAX_LOCATION_ROWS = MAX_UPSERT_ROWS;

/** The location types are declared once, in src/lib/domain-lists.ts (`TIPI_UBICAZIONE`, `TipoUbicazione`), which the screens share. */
const LOCATION_TYPES = TIPI_UBICAZIONE;

/** A code and a text as the other master-data upserts check them (catalogue/import.schemas.ts `code`, `text`). */
const code = () => shortText(64);
const text = (max: number) => shortText(max);

const field = (type: string | string[], description: string, extra: Record<string, unknown> = {}) =>
  z
    .unknown()
    .optional()
    .meta({ type, description, ...extra } as Record<string, unknown>);

export const locationUpsertRow = z
  .looseObject({
    magazzino: field("string", "Codice del magazzino (come in POST /magazzini): con `codice`, la chiave dell'upsert"),
    codice: field(
      "string",
      "Codice dell'ubicazione (1..64 caratteri), ciò che legge il codice a barre della sua etichetta: non può leggersi come altro " +
        "(un EAN, un SSCC di 18 cifre, un codice GS1, `R` seguito da cifre)",
    ),
    descrizione: field(["string", "null"], "Descrizione (1..200 caratteri); null la cancella"),
    tipo: field("string", "Tipo, obbligatorio per un'ubicazione nuova: `ricevimento`, `stoccaggio` o `quarantena`", {
      enum: [...LOCATION_TYPES],
    }),
    attiva: field(
      "boolean",
      "Falso: non riceve più merce ma dà la sua. Non si disattiva un'ubicazione che contiene merce, né l'ubicazione di ricevimento " +
        "del suo magazzino (`ubicazione_non_vuota`). Predefinito per un'ubicazione nuova: true",
    ),
  })
  .meta({ description: "Un campo assente mantiene il valore registrato; `null` cancella la descrizione." });

export const upsertLocationsInput = z.strictObject({
  ubicazioni: z.array(locationUpsertRow, { error: typeError("deve essere un elenco [ … ] di ubicazioni") }).min(1, "almeno una riga"),
});

/** A row as the service checks it. */
export const locationRowCheck = z.strictObject({
  magazzino: code(),
  codice: code(),
  descrizione: text(200).nullable().optional(),
  tipo: z.enum(LOCATION_TYPES, { error: typeError(`deve essere uno tra ${LOCATION_TYPES.join(", ")}`) }).optional(),
  attiva: z.boolean({ error: typeError("deve essere true o false") }).optional(),
});
export type LocationRowCheck = z.infer<typeof locationRowCheck>;

/** What identifies a location row of a call: its warehouse's code and its own. */
export const locationKey = (magazzino: unknown, codice: string) =>
  `${typeof magazzino === "string" ? magazzino.trim() : JSON.stringify(magazzino)}\u0000${codice}`;
