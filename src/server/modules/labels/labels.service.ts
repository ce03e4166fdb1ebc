import type { ModelDb } from "../../db/client";
import { first, rows } from "../../db/sql";
import { DomainError } from "../../lib/errors";
import { getPrintableOrder } from "../orders/orders.service";
import { ssccOrRefuse } from "../../lib/sscc";
import { Decimal, canonical } from "../../lib/decimal";
import { type Label, type PalletLabelData, type SheetSize, type Size, locationLabel, lotLabel, palletLabel, rowLabel } from "./label-model";
import * as q from "./labels.queries";
import { type LabelSpec, MAX_LABELS } from "./labels.schemas";
import { renderPdf } from "./pdf";
import { renderZpl } from "./zpl";

/**
 * Labels (docs/api.md section 13): the data of a label kind read from the database, drawn as PDF or ZPL.
 * The same function serves the GETs and the print jobs, so a printed label is the label the GET shows.
 */

export interface DrawnLabels {
  labels: Label[];
  /** A name for the file: the kind and what it is of. */
  nome: string;
  avviso?: "lotto_non_gs1";
}

export interface LabelFile {
  bytes: Uint8Array;
  contentType: string;
  filename: string;
  avviso?: "lotto_non_gs1";
}

/** Query parameters come as text; a print job's body as JSON: both become one spec. */
export async function drawLabels(db: ModelDb, spec: LabelSpec): Promise<DrawnLabels> {
  switch (spec.tipo) {
    case "lotto": {
      const a = await first(db, q.articleById(spec.articolo));
      if (!a) throw new DomainError("articolo_non_trovato", `L'articolo ${spec.articolo} non esiste.`, { campo: "articolo" });
      const label = lotLabel({
        articolo: a,
        lotto: spec.lotto,
        scadenza: spec.scadenza ?? null,
        quantita: spec.quantita ?? null,
      });
      return { labels: [label], nome: `lotto-${a.codice}-${spec.lotto}`, ...(label.avviso ? { avviso: label.avviso } : {}) };
    }
    case "ubicazione": {
      const w = await first(db, q.warehouseById(spec.magazzino));
      if (!w) throw new DomainError("magazzino_non_trovato", `Il magazzino ${spec.magazzino} non esiste.`, { campo: "magazzino" });
      const range = locationRange(spec);
      const found = await rows(db, q.locationsBetween(w.id, range.da, range.a, MAX_LABELS + 1));
      if (found.length === 0)
        throw new DomainError(
          "ubicazione_non_trovata",
          range.da === range.a
            ? `L'ubicazione '${range.da}' non esiste nel magazzino ${w.codice}.`
            : `Nessuna ubicazione del magazzino ${w.codice} tra '${range.da}' e '${range.a}'.`,
          { campo: spec.ubicazione !== undefined ? "ubicazione" : "da" },
        );
      if (found.length > MAX_LABELS)
        throw new DomainError("troppe_righe", `Oltre ${MAX_LABELS} ubicazioni tra '${range.da}' e '${range.a}': stringere l'intervallo.`, {
          campo: "a",
        });
      return {
        labels: found.map((l) => locationLabel({ magazzino: w, codice: l.codice, descrizione: l.descrizione })),
        nome: `ubicazioni-${w.codice}-${range.da}${range.da === range.a ? "" : `-${range.a}`}`,
      };
    }
    case "collo": {
      const data = await palletData(db, spec.sscc);
      return { labels: [palletLabel(data)], nome: `collo-${spec.sscc}` };
    }
    case "riga": {
      const order = await getPrintableOrder(db, spec.ordine);
      const righe = spec.riga === undefined ? order.righe : order.righe.filter((r) => r.riga === spec.riga);
      if (righe.length === 0)
        throw new DomainError("riga_non_trovata", `La riga ${spec.riga} non è dell'ordine ${order.numero}.`, { campo: "riga" });
      return {
        labels: righe.map((r) =>
          rowLabel({
            riga: r.riga,
            posizione: r.posizione,
            ordine: order.numero,
            fornitore: order.fornitore.nome,
            articolo: r.articolo,
            ordinata: r.ordinata,
          }),
        ),
        nome: `righe-${order.numero}`,
      };
    }
  }
}

/**
 * A pallet as its logistic label shows it: the SSCC, supplier and notice always; the content ((02) (37),
 * and (10) (17) when one lot) only when every row is of one article.
 */
async function palletData(db: ModelDb, raw: string): Promise<PalletLabelData> {
  const sscc = ssccOrRefuse(raw);
  const pallet = await first(db, q.palletBySscc(sscc));
  if (!pallet) throw new DomainError("collo_non_trovato", `Nessun collo con SSCC ${sscc} negli avvisi di spedizione.`);
  const content = await rows(db, q.palletContent(sscc));
  const [one] = content;
  const single = one !== undefined && content.every((r) => r.articolo_id === one.articolo_id);
  const oneLot = single && content.every((r) => r.lotto === one.lotto && r.scadenza?.getTime() === one.scadenza?.getTime());
  return {
    sscc,
    fornitore: { codice: pallet.fornitore_codice, nome: pallet.fornitore_nome },
    avviso: pallet.avviso,
    contenuto: single
      ? {
          codice: one.codice,
          descrizione: one.descrizione,
          ean: one.ean,
          quantita: canonical(content.reduce((sum, r) => sum.plus(r.quantita.toString()), new Decimal(0))),
          lotto: oneLot ? one.lotto : null,
          scadenza: oneLot && one.scadenza ? one.scadenza.toISOString().slice(0, 10) : null,
        }
      : null,
  };
}

/** One location (`ubicazione`) or a range (`da` and `a`), never both, never half a range. */
function locationRange(spec: { ubicazione?: string; da?: string; a?: string }): { da: string; a: string } {
  const refuse = (campo: string, m: string) => new DomainError("filtro_non_valido", m, { campo });
  if (spec.ubicazione !== undefined) {
    if (spec.da !== undefined || spec.a !== undefined)
      throw refuse("ubicazione", "Indicare 'ubicazione' oppure l'intervallo 'da'..'a', non entrambi.");
    return { da: spec.ubicazione, a: spec.ubicazione };
  }
  if (spec.da === undefined || spec.a === undefined)
    throw refuse(spec.da === undefined ? "da" : "a", "Indicare 'ubicazione', oppure sia 'da' sia 'a' per un intervallo.");
  if (Buffer.compare(Buffer.from(spec.da), Buffer.from(spec.a)) > 0) throw refuse("da", `'da' (${spec.da}) viene dopo 'a' (${spec.a}).`);
  return { da: spec.da, a: spec.a };
}

export async function renderLabels(
  drawn: DrawnLabels,
  opts: { formato?: "pdf" | "zpl"; dimensione?: SheetSize; copie?: number },
): Promise<LabelFile> {
  const size = opts.dimensione ?? "100x50";
  const copies = opts.copie ?? 1;
  const base = drawn.nome.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 80);
  const avviso = drawn.avviso ? { avviso: drawn.avviso } : {};
  if (opts.formato === "zpl") {
    if (size === "a4")
      throw new DomainError("filtro_non_valido", "Il foglio A4 esiste solo in PDF: per ZPL scegliere 100x50, 100x150 o 50x25.", {
        campo: "dimensione",
      });
    return {
      bytes: Buffer.from(renderZpl(drawn.labels, size, copies)),
      contentType: "text/plain; charset=utf-8",
      filename: `${base}.zpl`,
      ...avviso,
    };
  }
  return {
    bytes: await renderPdf(drawn.labels, size, copies, drawn.nome),
    contentType: "application/pdf",
    filename: `${base}.pdf`,
    ...avviso,
  };
}

/** The ZPL of a print job, at the printer's size. */
export async function printerZpl(
  db: ModelDb,
  spec: LabelSpec,
  size: Size,
  copies: number,
): Promise<{ zpl: string; avviso?: "lotto_non_gs1" }> {
  const drawn = await drawLabels(db, spec);
  return { zpl: renderZpl(drawn.labels, size, copies), ...(drawn.avviso ? { avviso: drawn.avviso } : {}) };
}
