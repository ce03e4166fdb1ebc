"use client";
import { useRef } from "react";
import { sendOrQueue } from "../../offline/send-or-queue";
import { instant, parseDecimal, qty } from "../../format";
import type { ArrivalRequest, QueuedArrival } from "./arrival-queue";
import { countedExcess, problemOf, type RowContext } from "./row-rules";
import type { ArrivalFields, Current, Feedback, PendingField, Registered } from "./types";
import type { useArrivalQueue } from "./use-arrival-queue";

const notDone = (title: string, message: string): Registered => ({ done: false, feedback: { outcome: "ko", title, message } });
const when = (q: QueuedArrival) => instant(new Date(q.il).toISOString());

/**
 * Registering the row shown, once at a time, and never the same intent twice.
 *
 * A registration whose outcome is unknown (no answer, a timeout, a 5xx) goes into the device's queue with
 * its Idempotency-Key (`incerto`), so the row is free and the next scan goes on. The next registration of
 * that row first settles the old key (`idempotency.settle`: a look-up that, when the key never ran, marks
 * it abandoned in the same step, so a late original is refused), shows what is true, and writes nothing:
 * the operator presses again, with the truth in view, and that write takes a new key. Replaying the old
 * request instead would register both when the operator corrected the quantity in between. Offline, a
 * registration is queued (`in_coda`) and sent when the network returns (sendOrQueue: the one policy).
 */
export function useRegistration(deps: {
  queue: ReturnType<typeof useArrivalQueue>;
  /** The row shown as it is now (the screen state, not a render behind). */
  current: () => Current | null;
  values: () => ArrivalFields;
  context: () => RowContext;
  /** A registration done (or found done): the row, for what the screen remembers of it (the DDT's supplier). */
  onRegistered: (cur: Current) => void;
  say: (f: Feedback) => void;
  focus: (field: PendingField | "scan") => void;
  releaseHeld: (before?: Feedback) => void;
}) {
  const running = useRef<Promise<Registered> | null>(null);
  const { queue } = deps;

  /** The row's arrivals of unknown outcome, settled: what happened to them, said; null when there were none. */
  async function settleRow(cur: Current): Promise<Registered | null> {
    const { row } = cur;
    const notice = await queue.takeNotice(row.riga);
    if (notice)
      return notDone(
        `Già registrato: ${qty(notice.quantita)} × ${notice.codice} delle ${instant(new Date(notice.il).toISOString())}`,
        "La registrazione rimasta senza risposta è stata verificata ed è avvenuta una volta: i dati mostrati non sono stati registrati. Invio per registrarli comunque.",
      );
    const unsure = queue.itemsRef.current.filter((q) => q.richiesta.riga === row.riga && q.stato === "incerto");
    for (const u of unsure) {
      const what = `${qty(u.richiesta.quantita)} × ${u.codice} delle ${when(u)}`;
      const s = await queue.settle(u.chiave);
      if ("unknown" in s)
        return notDone(
          "Esito ancora incerto",
          `Non si sa ancora se ${what} è stato registrato (${s.unknown.messaggio}). Si verifica appena il servizio risponde; intanto leggere altre righe.`,
        );
      await queue.remove(u);
      if ("ran" in s) {
        deps.onRegistered(cur);
        return {
          done: true,
          feedback: {
            outcome: "ok",
            title: `Già registrato: ${what}`,
            message: `La registrazione rimasta senza risposta era avvenuta: non è stata ripetuta, e i dati mostrati non sono stati registrati. Se ne è arrivato altro, leggere di nuovo la riga ${row.etichetta}.`,
          },
        };
      }
      if ("refused" in s) return notDone(`Rifiutato: ${what}`, `${s.refused.messaggio} Invio per registrare i dati mostrati.`);
      return notDone(
        `Non registrato: ${what}`,
        `La registrazione rimasta senza risposta non era avvenuta, e ora non avverrà più. Invio per registrare i dati mostrati.`,
      );
    }
    return null;
  }

  async function write(cur: Current, values: ArrivalFields): Promise<Registered> {
    const settled = await settleRow(cur);
    if (settled) return settled;
    const { row, order } = cur;
    const { magazzino, ddt } = deps.context();
    const excess = countedExcess(cur, values.quantita);
    const q = excess ? excess.riceve : parseDecimal(values.quantita)!;
    const lotto = values.lotto.trim();
    const richiesta: ArrivalRequest = {
      magazzino: Number(magazzino),
      ddt: ddt.trim(),
      riga: row.riga,
      quantita: q,
      ...(row.chiede_lotto && lotto ? { lotto } : {}),
      ...(row.chiede_lotto && values.scadenza ? { scadenza: values.scadenza } : {}),
      ...(excess
        ? {
            differenza: {
              quantita: excess.eccedente,
              motivo: "eccedente" as const,
              nota: `Contati ${qty(cur.counted)} sul residuo di ${qty(row.residua)}`,
            },
          }
        : {}),
    };
    const extra = excess ? `; ${qty(excess.eccedente)} oltre il residuo annotati come eccedente, non ricevuti` : "";
    const what = `${qty(q)} × ${row.articolo.codice}`;
    const item = { richiesta, codice: row.articolo.codice, etichetta: row.etichetta, ordine: order.numero };
    const out = await sendOrQueue({
      online: queue.online,
      send: (chiave) => queue.send(richiesta, chiave),
      queue: (stato, chiave) => queue.add({ ...item, chiave, stato }),
    });
    if (out.kind === "refused") return notDone("Registrazione rifiutata", out.error.messaggio);
    deps.onRegistered(cur);
    if (out.kind === "sent")
      return {
        done: true,
        feedback: {
          outcome: "ok",
          title: `Registrato: ${what}`,
          message:
            `Residuo sulla riga ${row.etichetta}: ${qty(out.answer.residua)} · ordine ${order.numero} ${out.answer.stato ?? ""}`.trim() +
            extra,
        },
      };
    return {
      done: true,
      feedback:
        out.kind === "queued"
          ? { outcome: "info", title: `In coda: ${what}`, message: "Offline: sarà inviato appena la rete torna, una volta sola." }
          : {
              outcome: "ko",
              title: `Esito incerto: ${what}`,
              message:
                "Il servizio non ha risposto. In coda per la verifica: sarà registrato una volta sola. Si può leggere la riga seguente.",
            },
    };
  }

  async function registerNow(): Promise<Registered> {
    const cur = deps.current();
    if (!cur) return notDone("Nessuna riga da registrare", "Leggere un codice.");
    const values = deps.values();
    const problem = problemOf(cur, values, deps.context(), false);
    if (problem) {
      const feedback: Feedback = { outcome: "ko", title: problem.title, message: problem.message };
      deps.say(feedback);
      deps.focus(problem.field);
      return { done: false, feedback };
    }
    const outcome = await queue.lock(() => write(cur, values));
    deps.say(outcome.feedback);
    deps.focus("scan");
    if (outcome.done) deps.releaseHeld(outcome.feedback);
    return outcome;
  }

  /** Registers the row shown, once at a time: a second call while one runs waits for the same outcome. */
  function register(): Promise<Registered> {
    if (running.current) return running.current;
    const p = registerNow().finally(() => {
      running.current = null;
    });
    running.current = p;
    return p;
  }

  return {
    register,
    /** Waits for the registration running, if any. */
    idle: async () => {
      if (running.current) await running.current;
    },
  };
}
