"use client";
import { Alert, Button, Modal, SimpleGrid, Stack, Text } from "@mantine/core";
import { useQueryClient } from "@tanstack/react-query";
import type { ReservationOutput } from "@/server/modules/reservations/reservations.schemas";
import type { ScreenReservationOutput } from "@/server/modules/reservations/reservations-screens.schemas";
import { type DescribedError, outcomeUnknown } from "../../errors";
import { signal } from "../../feedback";
import { count, qty } from "../../format";
import { tellOtherTabs } from "../../other-tabs";
import { useTRPC } from "../../trpc";
import { useWrite } from "../../write-key";
import { releasable } from "./reservation-words";

/** Refusals after which pressing again changes nothing: the dialog only closes. */
const DEFINITIVE = new Set(["prenotazione_chiusa", "prenotazione_in_prelievo", "permesso_negato", "non_trovato"]);

/** The service's refusal of a release in a manager's words, with what to do next. */
function explainRefusal(p: ScreenReservationOutput) {
  return (d: DescribedError): string | undefined => {
    if (outcomeUnknown(d) && d.codice !== "idempotenza_in_corso") {
      return "Il servizio non ha risposto: la prenotazione potrebbe essere stata rilasciata oppure no. Premere di nuovo «Sì, rilascia»: non verrà mai rilasciata due volte.";
    }
    switch (d.codice) {
      case "prenotazione_chiusa":
        return `${d.messaggio} Non tiene più merce, non serve rilasciarla: l'elenco ora la mostra com'è.`;
      case "prenotazione_in_prelievo":
        return `La prenotazione ${p.riferimento} è in una lista di prelievo: annullare prima la lista, poi rilasciarla.`;
      case "non_trovato":
        return `La prenotazione ${p.riferimento} non esiste più: aggiornare la pagina.`;
      default:
        return undefined;
    }
  };
}

/**
 * "Rilasciare la prenotazione?": a manager releases every row of a reservation (POST /prenotazioni/{id}/annulla by
 * tRPC, with its Idempotency-Key: the REST write itself, so its refusals and replays are the same). The dialog
 * names the reference and the customer; after it the reservations, the availability and the articles' holders
 * are read again, so what the screens show is the service's.
 */
export function ReleaseDialog({
  reservation: p,
  onClose,
  onDone,
}: {
  reservation: ScreenReservationOutput;
  onClose: () => void;
  onDone: (out: ReservationOutput) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { saving, error, failure, run } = useWrite(
    (context) => trpc.reservations.cancel.mutationOptions({ trpc: { context } }),
    explainRefusal(p),
  );
  const refresh = () => {
    const keys = [trpc.reservations.newest.pathKey(), trpc.reservations.holders.pathKey(), trpc.availability.list.pathKey()];
    tellOtherTabs(keys);
    return Promise.all(keys.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
  };
  const settled = failure !== null && DEFINITIVE.has(failure.codice);

  async function confirm() {
    const out = await run({ id: String(p.id) });
    await refresh();
    if (!out) return;
    signal("ok");
    onDone(out);
  }

  return (
    <Modal opened onClose={onClose} title="Rilasciare la prenotazione?" centered>
      <Stack gap="sm">
        <Text size="sm" data-testid="rilascia-chi">
          Prenotazione <b>{p.riferimento}</b> del cliente <b>{p.cliente.nome}</b> ({p.cliente.codice}), magazzino{" "}
          <span style={{ whiteSpace: "nowrap" }}>{p.magazzino.codice}</span>: {count(p.righe.length, "riga", "righe")}, quantità tenuta in
          tutto <b>{qty(releasable(p))}</b>.
        </Text>
        <Text size="sm">
          Tutte le righe vengono rilasciate: la merce torna disponibile per altri ordini e la prenotazione risulta annullata. Non si può
          tornare indietro; il cliente dovrà prenotare di nuovo.
        </Text>
        {error && (
          <Alert color={settled ? "orange" : "red"} data-testid="errore-rilascia">
            {error}
          </Alert>
        )}
        <SimpleGrid cols={settled ? 1 : { base: 1, xs: 2 }} spacing="xs">
          {!settled && (
            <Button color="red" onClick={() => void confirm()} loading={saving} fullWidth data-testid="conferma-rilascia">
              Sì, rilascia
            </Button>
          )}
          <Button variant="default" onClick={onClose} disabled={saving} fullWidth data-testid="chiudi-rilascia">
            {settled ? "Chiudi" : "No"}
          </Button>
        </SimpleGrid>
      </Stack>
    </Modal>
  );
}

/** What a release did, for the screen's confirmation. */
export function releasedNote(p: ScreenReservationOutput, out: ReservationOutput): string {
  const state = out.stato === "annullata" ? "annullata" : "ancora attiva per il prelevato";
  return `Prenotazione ${p.riferimento} di ${p.cliente.nome} rilasciata: ${qty(releasable(p))} tornano disponibili in ${p.magazzino.codice}; ora è ${state}.`;
}
