import type { UseFormReturnType } from "@mantine/form";
import type { ScanOutput } from "@/server/modules/arrivals/arrivals.schemas";
import { describeError } from "../../errors";
import { type LotReading, readLot } from "./row-rules";
import { type ArrivalFields, type Current, type Feedback, sameCode } from "./types";
import type { FocusTarget } from "./use-dock-focus";

type Lot = Extract<LotReading, { kind: "lotto" }>;

/**
 * The lot field of a row that needs one: what a code read into it is. A GS1 code (any form, raw included) is
 * taken apart: its lot and expiry fill the fields, and its GTIN must be the row's article (the service, or
 * the local copy offline, says which article it is). The row's own product code, an EAN or a label the
 * service knows, is a scan, not a lot. Anything else is the lot as read.
 */
export function lotField(deps: {
  /** The row shown as it is now (the screen state, not a render behind). */
  current: () => Current | null;
  fields: UseFormReturnType<ArrivalFields>;
  say: (f: Feedback) => void;
  focus: (field: FocusTarget) => void;
  lookUp: (code: string) => Promise<ScanOutput | Error>;
  /** The code is a scan: read by the scan queue, with the answer already looked up. */
  asScan: (code: string, res: ScanOutput) => void;
  register: () => void;
}) {
  const { fields, say, focus } = deps;
  const refuse = (title: string, message: string) => {
    say({ outcome: "ko", title, message });
    focus("lotto");
  };

  function fill(r: Lot) {
    fields.setFieldValue("lotto", r.lotto);
    if (r.scadenza) fields.setFieldValue("scadenza", r.scadenza);
    say({
      outcome: "info",
      title: `Lotto letto: ${r.lotto}`,
      message: r.scadenza ? "Scadenza letta. Controllare la quantità, poi Invio." : "Indicare la scadenza se c'è, poi Invio.",
    });
    focus(r.scadenza ? "scan" : "scadenza");
  }

  async function read(text: string) {
    const cur = deps.current();
    if (!cur) return;
    if (sameCode(text, cur.code))
      return refuse("È il codice dell'articolo, non il lotto", `Leggere il codice del lotto di ${cur.row.articolo.codice}, o scriverlo.`);
    const r = readLot(text);
    if (r.kind === "illeggibile") return refuse("Lotto non letto", r.motivo);
    if (r.kind === "lotto" && !r.gtin) return fill(r);
    const res = await deps.lookUp(text);
    if (res instanceof Error) return refuse("Ricerca non riuscita", `${describeError(res).messaggio} Codice letto: ${text}.`);
    const found = res.ordini[0] ?? res.altro_magazzino?.ordini[0];
    const article = found?.righe[0]?.articolo;
    if (r.kind === "lotto") {
      if (article?.id === cur.row.articolo.id) return fill(r);
      return refuse(
        "Lotto di un altro articolo",
        `Il codice letto (GTIN ${r.gtin}${article ? `, ${article.codice}` : ""}) non è di ${cur.row.articolo.codice}: leggere il lotto sulla confezione di ${cur.row.articolo.codice}.`,
      );
    }
    if (res.motivo_codice === "codice_sconosciuto") return fill({ kind: "lotto", lotto: text.trim(), scadenza: null, gtin: null });
    deps.asScan(text, res);
  }

  /** Enter in the lot field, typed by a person: the text read as a scan into it would be; an empty expiry comes next. */
  async function onEnter() {
    const lot = fields.getValues().lotto.trim();
    const r = lot ? readLot(lot) : null;
    if (r && !(r.kind === "lotto" && !r.gtin)) {
      fields.setFieldValue("lotto", "");
      return read(lot);
    }
    if (!fields.getValues().scadenza) focus("scadenza");
    else deps.register();
  }

  return { read, fill, onEnter };
}
