"use client";
import { useCallback, useRef, useState } from "react";
import { describeError } from "../../errors";
import { signal } from "../../feedback";
import { useMutationCall } from "../../hooks";
import type { ParsedCounts } from "../../inventory-csv";
import { useTRPC } from "../../trpc";
import type { Feedback } from "../receiving/types";

/** One (article, lot) counted by scan: each scan adds the article's pack size; a typed quantity replaces it. */
export interface CountLine {
  key: string;
  codice: string;
  descrizione: string;
  unita: string;
  gestione_lotti: boolean;
  lotto: string;
  contato: string;
}

/** Where the count is: a location (its label read first) and whether it is counted as a whole. */
export interface CountScope {
  ubicazione: string | null;
  completa: boolean;
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;

/**
 * Counting a bin with the scanner alone (docs/api.md section 11, "Counting a location"): the location's label
 * sets the count's location (and offers to count it as a whole), then each goods scan counts one pack of
 * that article (and lot, from a GS1 code). Every code comes from the one scan path (useScanner, in ScanCount) and is
 * read by the service (`putaway.identify`), one at a time in the order read. `onChange` hears every change:
 * a preview shown no longer holds.
 */
export function useScanCount(magazzino: string | null, onChange: () => void) {
  const trpc = useTRPC();
  const identify = useMutationCall(trpc.putaway.identify.mutationOptions());
  const [scope, setScope] = useState<CountScope>({ ubicazione: null, completa: false });
  const [lines, setLines] = useState<CountLine[]>([]);
  const [feedback, setFeedback] = useState<Feedback | null>(null);
  const changed = useRef(onChange);
  changed.current = onChange;

  const say = (f: Feedback) => {
    signal(f.outcome);
    setFeedback(f);
  };

  const read = async (code: string) => {
    if (!magazzino)
      return say({ outcome: "ko", title: "Scegliere il magazzino", message: "Prima il magazzino, poi l'ubicazione e la merce." });
    let out: Awaited<ReturnType<typeof identify>>;
    try {
      out = await identify({ magazzino: Number(magazzino), codice: code });
    } catch (e) {
      return say({ outcome: "ko", title: "Codice non letto", message: describeError(e).messaggio });
    }
    if (out.tipo === "sconosciuto") return say({ outcome: "ko", title: "Codice sconosciuto", message: out.motivo });
    changed.current();
    if (out.tipo === "ubicazione") {
      setScope({ ubicazione: out.ubicazione.codice, completa: false });
      setLines([]);
      return say({
        outcome: "ok",
        title: `Ubicazione ${out.ubicazione.codice}`,
        message: "Leggere la merce che contiene: ogni lettura conta una confezione.",
      });
    }
    const a = out.articolo;
    const lotto = out.lotto ?? "";
    const key = `${a.codice}\u0000${lotto}`;
    let total = Number(a.confezione);
    setLines((old) => {
      const found = old.find((l) => l.key === key);
      if (!found)
        return [
          ...old,
          {
            key,
            codice: a.codice,
            descrizione: a.descrizione,
            unita: a.unita,
            gestione_lotti: a.gestione_lotti,
            lotto,
            contato: a.confezione,
          },
        ];
      total = round3(Number(found.contato.replace(",", ".")) + Number(a.confezione));
      return old.map((l) => (l === found ? { ...l, contato: String(total) } : l));
    });
    say({ outcome: "ok", title: `${a.codice}${lotto ? ` lotto ${lotto}` : ""}: +${a.confezione}`, message: a.descrizione });
  };

  const chain = useRef<Promise<void>>(Promise.resolve());
  const readRef = useRef(read);
  readRef.current = read;
  const enqueue = useCallback((code: string) => {
    chain.current = chain.current.then(() => readRef.current(code)).catch(() => undefined);
  }, []);

  const setLine = (key: string, field: "contato" | "lotto", value: string) => {
    changed.current();
    setLines((old) => old.map((l) => (l.key === key ? { ...l, [field]: value } : l)));
  };
  const removeLine = (key: string) => {
    changed.current();
    setLines((old) => old.filter((l) => l.key !== key));
  };
  const setCompleta = (completa: boolean) => {
    changed.current();
    setScope((s) => ({ ...s, completa }));
  };
  /** The location read holds nothing: counted whole, with no lines. */
  const markEmpty = () => {
    changed.current();
    setScope((s) => ({ ...s, completa: true }));
    setLines([]);
  };
  const clear = () => {
    changed.current();
    setScope({ ubicazione: null, completa: false });
    setLines([]);
    setFeedback(null);
  };

  /** The lines as the alignment's rows (what the CSV would have given); a quantity that is no number is said. */
  const asCounts = (): ParsedCounts => {
    const problems: ParsedCounts["problems"] = [];
    const rows = lines.flatMap((l, i) => {
      const contato = Number(l.contato.replace(",", "."));
      if (!Number.isFinite(contato) || contato < 0 || l.contato.trim() === "") {
        problems.push({ riga: i + 1, messaggio: `${l.codice}: quantità «${l.contato}» non valida.` });
        return [];
      }
      return [{ riga: i + 1, codice: l.codice, contato, ...(l.lotto.trim() ? { lotto: l.lotto.trim() } : {}) }];
    });
    return { rows, problems, separator: ";", header: false };
  };

  return { scope, lines, feedback, enqueue, setLine, removeLine, setCompleta, markEmpty, clear, asCounts };
}
