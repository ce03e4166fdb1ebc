"use client";
import { Alert, Button, Modal, SimpleGrid, Stack, Text } from "@mantine/core";
import { useQueryClient } from "@tanstack/react-query";
import type { CancelOutput } from "@/server/modules/arrivals/arrivals.schemas";
import { type DescribedError, outcomeUnknown } from "../errors";
import { signal } from "../feedback";
import { day, qty } from "../format";
import { tellOtherTabs } from "../other-tabs";
import { useTRPC } from "../trpc";
import { useWrite } from "../write-key";

/** An arrival as the order detail and the movements list know it: enough to say which one is being cancelled. */
export interface ArrivalToCancel {
  movimento: number;
  codice: string;
  quantita: string;
  /** The article's unit, when the screen knows it. */
  unita?: string;
  data: string;
  lotto: string | null;
  autore: string | null;
  /** Where the goods are: the warehouse's code, when the screen shows one. */
  magazzino?: string;
}

/** Refusals after which pressing again changes nothing: the dialog only closes. */
const DEFINITIVE = new Set(["arrivo_gia_annullato", "lotto_consumato", "permesso_negato", "non_trovato"]);

/** The service's refusal of a cancellation in a warehouse person's words, with what to do next. */
function explainRefusal(a: ArrivalToCancel) {
  return (d: DescribedError): string | undefined => {
    if (outcomeUnknown(d) && d.codice !== "idempotenza_in_corso") {
      return "Il servizio non ha risposto: l'arrivo potrebbe essere stato annullato oppure no. Premere di nuovo «Sì, annulla l'arrivo»: non verrà mai annullato due volte.";
    }
    switch (d.codice) {
      case "arrivo_gia_annullato":
        return "Questo arrivo era già stato annullato (da un altro schermo o da un collega): non serve altro, l'elenco ora lo mostra annullato.";
      case "lotto_consumato":
        return `Il lotto ${a.lotto ?? ""} di ${a.codice} non ha più tutti i ${qty(a.quantita)} arrivati: una parte è già stata scaricata, venduta o trasferita. Per annullare l'arrivo, annullare prima quei movimenti oppure correggere la giacenza del lotto con un inventario, poi riprovare.`;
      case "non_trovato":
        return "Questo movimento non risulta un arrivo registrato: aggiornare la pagina.";
      default:
        return undefined;
    }
  };
}

/**
 * "Annullare l'arrivo?": a manager's cancellation of any arrival, from the order detail or the movements
 * list (POST /arrivi/{id}/annulla, with its Idempotency-Key). The service writes a reversing movement and
 * the row expects the quantity again; the screens' orders and movements are read again, so what they show
 * is the service's. `onDone` gets the service's answer (the row's new arrived and remaining quantities).
 */
export function CancelArrivalDialog({
  arrival,
  onClose,
  onDone,
}: {
  arrival: ArrivalToCancel;
  onClose: () => void;
  onDone: (out: CancelOutput) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { saving, error, failure, run } = useWrite(
    (context) => trpc.arrivals.cancel.mutationOptions({ trpc: { context } }),
    explainRefusal(arrival),
  );
  const refresh = () => {
    const keys = [trpc.orders.detail.pathKey(), trpc.orders.list.pathKey(), trpc.movements.newest.pathKey(), trpc.arrivals.today.pathKey()];
    // The dock's lists open in this browser's other tabs show the cancellation too.
    tellOtherTabs(keys);
    return Promise.all(keys.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
  };
  const settled = failure !== null && DEFINITIVE.has(failure.codice);

  async function confirm() {
    const out = await run({ id: String(arrival.movimento) });
    if (!out) {
      // Refused: the screens show the arrival as the service has it now (already cancelled by someone else).
      await refresh();
      return;
    }
    signal("ok");
    await refresh();
    onDone(out);
  }

  const unit = arrival.unita ? ` ${arrival.unita}` : "";
  return (
    <Modal opened onClose={onClose} title="Annullare l'arrivo?" centered>
      <Stack gap="sm">
        <Text size="sm">
          Arrivo del {day(arrival.data)}:{" "}
          <b>
            {qty(arrival.quantita)}
            {unit}
          </b>{" "}
          di <b>{arrival.codice}</b>
          {arrival.lotto ? `, lotto ${arrival.lotto}` : ""}
          {arrival.magazzino ? `, in ${arrival.magazzino}` : ""}
          {arrival.autore ? `, registrato da ${arrival.autore}` : ""}.
        </Text>
        <Text size="sm">
          Viene scritto un movimento di storno: la merce esce dal magazzino e la quantità torna da ricevere sulla riga dell&apos;ordine.
        </Text>
        {error && (
          <Alert color={settled ? "orange" : "red"} data-testid="errore-annulla-arrivo">
            {error}
          </Alert>
        )}
        <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="xs">
          {!settled && (
            <Button color="red" onClick={() => void confirm()} loading={saving} fullWidth data-testid="conferma-annulla-arrivo">
              Sì, annulla l&apos;arrivo
            </Button>
          )}
          <Button variant="default" onClick={onClose} disabled={saving} fullWidth data-testid="chiudi-annulla-arrivo">
            {settled ? "Chiudi" : "No"}
          </Button>
        </SimpleGrid>
      </Stack>
    </Modal>
  );
}

/** What a cancellation left on its order row, for the screen's confirmation. */
export function cancelledNote(a: ArrivalToCancel, out: CancelOutput): string {
  const unit = a.unita ? ` ${a.unita}` : "";
  return `Arrivo annullato: ${qty(a.quantita)}${unit} di ${a.codice}${a.lotto ? `, lotto ${a.lotto}` : ""} (movimento di storno ${out.movimento}). Sulla riga R${out.riga.riga} ora arrivati ${qty(out.riga.arrivata)}, da ricevere ${qty(out.riga.residua)}.`;
}
