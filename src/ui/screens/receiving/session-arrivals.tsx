"use client";
import { Badge, Button, Group, SegmentedControl, Stack, Table, Text, Title } from "@mantine/core";
import { memo } from "react";
import { DataTable } from "../../data-table";
import { instant, qty } from "../../format";
import { lotLabelPdf } from "./use-label-print";
import { type ArrivalsView, type TodayArrival, unitOf } from "./use-today-arrivals";
import { Modal } from "../../lazy-modal";

/** One arrival of today: memoised too, so a new arrival renders its own row, not the whole list again. */
const ArrivalRow = memo(function ArrivalRow({
  a,
  onCancel,
  onLabel,
}: {
  a: TodayArrival;
  onCancel: (a: TodayArrival) => void;
  /** Reprints the lot's label on this device's printer (absent: none chosen, the label is offered as PDF). */
  onLabel?: (a: TodayArrival) => void;
}) {
  return (
    <Table.Tr data-testid={`arrivo-${a.movimento}`} style={a.annullato ? { opacity: 0.55 } : undefined}>
      <Table.Td>
        <Text fw={700} size="sm" td={a.annullato ? "line-through" : undefined}>
          {a.articolo.codice}
        </Text>
        <Text size="xs" c="dimmed">
          {instant(a.registrato_il)} · {a.etichetta} · {a.ordine.numero} · DDT {a.ddt}
          {a.lotto ? ` · lotto ${a.lotto}` : ""}
          {a.utente ? ` · ${a.utente.username}` : " · API"}
        </Text>
      </Table.Td>
      <Table.Td className="num">{qty(a.quantita)}</Table.Td>
      <Table.Td>
        <Group gap="xs" justify="flex-end" wrap="wrap">
          {a.lotto &&
            !a.annullato &&
            (onLabel ? (
              <Button size="sm" variant="default" onClick={() => onLabel(a)} data-testid={`etichetta-${a.movimento}`}>
                Etichetta
              </Button>
            ) : (
              // No network printer on this device: the label as PDF, printed through the browser's dialog.
              <Button
                size="sm"
                variant="default"
                component="a"
                href={lotLabelPdf(a)}
                target="_blank"
                rel="noopener"
                data-testid={`etichetta-pdf-${a.movimento}`}
                title="Etichetta del lotto in PDF, da stampare dal browser"
              >
                Etichetta
              </Button>
            ))}
          {a.annullato ? (
            <Badge color="gray">Annullato</Badge>
          ) : a.annullabile ? (
            <Button size="sm" color="red" variant="light" onClick={() => onCancel(a)} data-testid={`annulla-${a.movimento}`}>
              Annulla
            </Button>
          ) : null}
        </Group>
      </Table.Td>
    </Table.Tr>
  );
});

const VIEWS: { value: ArrivalsView; label: string }[] = [
  { value: "ddt", label: "Questo DDT" },
  { value: "miei", label: "Miei" },
  { value: "tutti", label: "Tutti" },
];

/**
 * Today's arrivals as the service has them (any device, any tab): of the delivery note being received, the
 * user's own, or everyone's; newest first, each with Annulla where the user may cancel it. Memoised: the
 * screen renders at every scan, the list only when its arrivals change.
 */
export const TodayArrivals = memo(function TodayArrivals({
  arrivals,
  failed,
  view,
  onView,
  ddt,
  onCancel,
  onLabel,
}: {
  arrivals: TodayArrival[] | null;
  /** The list could not be read from the service. */
  failed: boolean;
  view: ArrivalsView;
  onView: (v: ArrivalsView) => void;
  ddt: string;
  onCancel: (a: TodayArrival) => void;
  onLabel?: (a: TodayArrival) => void;
}) {
  const empty =
    view === "ddt"
      ? ddt.trim()
        ? `Nessun arrivo registrato oggi con il DDT ${ddt.trim()}.`
        : "Scrivere il DDT per vederne gli arrivi."
      : view === "miei"
        ? "Nessun arrivo registrato oggi da questo utente."
        : "Nessun arrivo registrato oggi.";
  return (
    <Stack gap="xs" data-testid="arrivi-oggi">
      <Group justify="space-between" gap="xs">
        <Title order={4}>Arrivi di oggi</Title>
        <SegmentedControl size="xs" value={view} onChange={(v) => onView(v as ArrivalsView)} data={VIEWS} data-testid="vista-arrivi" />
      </Group>
      {arrivals === null || arrivals.length === 0 ? (
        <Text c="dimmed" size="sm">
          {failed
            ? "Elenco non disponibile: il servizio non risponde. Torna con la rete."
            : arrivals === null && (view !== "ddt" || ddt.trim())
              ? "Caricamento…"
              : empty}
        </Text>
      ) : (
        <DataTable
          minWidth={300}
          verticalSpacing="sm"
          striped
          columns={[{ label: "Articolo" }, { label: "Q.tà", num: true }, { key: "azioni" }]}
        >
          {arrivals.map((a) => (
            <ArrivalRow key={a.movimento} a={a} onCancel={onCancel} onLabel={onLabel} />
          ))}
        </DataTable>
      )}
    </Stack>
  );
});

/**
 * "Annullare l'arrivo?": a reversing movement is written and the quantity is expected again. A scan while it
 * is open waits in the queue (the screen says so); Enter of a scanner never presses its buttons.
 */
export const CancelArrivalModal = memo(function CancelArrivalModal({
  arrival,
  busy,
  waiting,
  onConfirm,
  onClose,
}: {
  arrival: TodayArrival | null;
  busy: boolean;
  /** Codes read while the dialog is open. */
  waiting: string[];
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <Modal opened={arrival !== null} onClose={onClose} title="Annullare l'arrivo?" centered returnFocus={false}>
      {arrival && (
        <Stack>
          <Text>
            Annullare l&apos;arrivo di{" "}
            <b>
              {qty(arrival.quantita)}
              {unitOf(arrival)} × {arrival.articolo.codice}
            </b>{" "}
            (riga {arrival.etichetta}, DDT {arrival.ddt})? Viene scritto un movimento di storno e la quantità torna da ricevere.
          </Text>
          {waiting.length > 0 && (
            <Text size="sm" c="orange.9" fw={600} data-testid="codici-in-coda-dialogo">
              {waiting.length === 1 ? "Letto nel frattempo" : "Letti nel frattempo"}: {waiting.join(", ")}, in coda dopo questa scelta.
            </Text>
          )}
          <Stack gap="xs">
            <Button color="red" size="lg" fullWidth onClick={onConfirm} loading={busy} data-testid="conferma-annulla">
              Sì, annulla l&apos;arrivo
            </Button>
            <Button variant="default" size="lg" fullWidth onClick={onClose} data-autofocus data-testid="non-annullare">
              No
            </Button>
          </Stack>
        </Stack>
      )}
    </Modal>
  );
});
