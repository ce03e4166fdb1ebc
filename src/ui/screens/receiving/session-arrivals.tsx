"use client";
import { Badge, Button, Group, Modal, Stack, Table, Text, Title } from "@mantine/core";
import { memo } from "react";
import { DataTable } from "../../data-table";
import { qty } from "../../format";
import type { SessionArrival } from "./use-receiving";

/** One arrival of the session: memoised too, so a new arrival renders its own row, not the whole list again. */
const ArrivalRow = memo(function ArrivalRow({ a, onCancel }: { a: SessionArrival; onCancel: (a: SessionArrival) => void }) {
  return (
    <Table.Tr data-testid={`arrivo-${a.movimento}`} style={a.annullato ? { opacity: 0.55 } : undefined}>
      <Table.Td>
        <Text fw={700} size="sm" td={a.annullato ? "line-through" : undefined}>
          {a.codice}
        </Text>
        <Text size="xs" c="dimmed">
          {a.ora} · {a.etichetta} · {a.ordine} · DDT {a.ddt}
          {a.lotto ? ` · lotto ${a.lotto}` : ""}
        </Text>
      </Table.Td>
      <Table.Td className="num">{qty(a.quantita)}</Table.Td>
      <Table.Td>
        {a.annullato ? (
          <Badge color="gray">Annullato</Badge>
        ) : (
          <Button size="sm" color="red" variant="light" onClick={() => onCancel(a)} data-testid={`annulla-${a.movimento}`}>
            Annulla
          </Button>
        )}
      </Table.Td>
    </Table.Tr>
  );
});

/**
 * The arrivals registered from this device in this tab, newest first, each with its Annulla. Memoised: the
 * screen renders at every scan and keystroke, and a table of a session's rows (Mantine cells, a button each)
 * costs more than the rest of the screen together; it changes only when an arrival is added or cancelled.
 */
export const SessionArrivals = memo(function SessionArrivals({
  arrivals,
  onCancel,
}: {
  arrivals: SessionArrival[];
  onCancel: (a: SessionArrival) => void;
}) {
  return (
    <Stack gap="xs" data-testid="arrivi-sessione">
      <Title order={4}>Arrivi di questa sessione</Title>
      {arrivals.length === 0 ? (
        <Text c="dimmed" size="sm">
          Nessun arrivo registrato da questo dispositivo in questa sessione.
        </Text>
      ) : (
        <DataTable
          minWidth={300}
          verticalSpacing="sm"
          striped
          columns={[{ label: "Articolo" }, { label: "Q.tà", num: true }, { key: "azioni" }]}
        >
          {arrivals.map((a) => (
            <ArrivalRow key={a.movimento} a={a} onCancel={onCancel} />
          ))}
        </DataTable>
      )}
    </Stack>
  );
});

/**
 * "Annullare l'arrivo?": a reversing movement is written and the quantity is expected again. Memoised:
 * closed, it has nothing to render again at every scan.
 */
export const CancelArrivalModal = memo(function CancelArrivalModal({
  arrival,
  busy,
  onConfirm,
  onClose,
}: {
  arrival: SessionArrival | null;
  busy: boolean;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <Modal opened={arrival !== null} onClose={onClose} title="Annullare l'arrivo?" centered>
      {arrival && (
        <Stack>
          <Text>
            Annullare l&apos;arrivo di{" "}
            <b>
              {qty(arrival.quantita)} × {arrival.codice}
            </b>{" "}
            (riga {arrival.etichetta}, DDT {arrival.ddt})? Viene scritto un movimento di storno e la quantità torna da ricevere.
          </Text>
          <Group grow>
            <Button color="red" size="lg" onClick={onConfirm} loading={busy} data-testid="conferma-annulla">
              Sì, annulla
            </Button>
            <Button variant="default" size="lg" onClick={onClose}>
              No
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
});
