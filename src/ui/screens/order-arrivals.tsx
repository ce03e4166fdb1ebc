"use client";
import { Alert, Badge, Button, Group, Stack, Text } from "@mantine/core";
import { useState } from "react";
import type { OrderDetail } from "@/server/modules/orders/orders.schemas";
import { day, qty } from "../format";
import { roleAtLeast, useUser } from "../session-context";
import { type ArrivalToCancel, CancelArrivalDialog, cancelledNote } from "./cancel-arrival";

type Row = OrderDetail["righe"][number];
type Arrival = Row["arrivi"][number];

const authorOf = (a: Arrival) => (a.autore ? `${a.autore.tipo === "chiave" ? "chiave " : ""}${a.autore.nome}` : null);

/**
 * The arrivals of one order row, oldest first: quantity, date, lot, who registered it; a cancelled one
 * struck through with its reversal. A responsabile (and up) cancels any of them here, whoever registered
 * it and whenever; an operatore cancels only its own arrivals of the day, on the receiving screen, so the
 * action is not offered to it (the service refuses it anyway: cancelArrival).
 */
export function OrderRowArrivals({ row }: { row: Row }) {
  const canCancel = roleAtLeast(useUser(), "responsabile");
  const [cancelling, setCancelling] = useState<ArrivalToCancel | null>(null);
  const [done, setDone] = useState<string | null>(null);
  if (row.arrivi.length === 0 && !done) return null;
  const toCancel = (a: Arrival): ArrivalToCancel => ({
    movimento: a.movimento,
    codice: row.articolo.codice,
    quantita: a.quantita,
    unita: row.articolo.unita,
    data: a.data,
    lotto: a.lotto,
    autore: authorOf(a),
  });
  return (
    <Stack gap={4} mt={6} data-testid={`arrivi-${row.numero_riga}`}>
      <Text size="xs" c="dimmed">
        {row.arrivi.length === 1 ? "Arrivo" : "Arrivi"}
      </Text>
      {row.arrivi.map((a) => {
        const cancelled = a.annullato_da !== null;
        return (
          <Group
            key={a.movimento}
            justify="space-between"
            wrap="nowrap"
            gap="xs"
            py={4}
            style={{ borderTop: "1px solid var(--mantine-color-gray-3)" }}
            data-testid={`arrivo-${a.movimento}`}
          >
            <div style={{ minWidth: 0, opacity: cancelled ? 0.6 : 1 }}>
              <Text size="sm" fw={600} td={cancelled ? "line-through" : undefined} className="num" ta="left">
                {qty(a.quantita)} {row.articolo.unita} · {day(a.data)}
              </Text>
              <Text size="xs" c="dimmed" style={{ overflowWrap: "anywhere" }}>
                {[
                  a.lotto ? `lotto ${a.lotto}` : null,
                  authorOf(a) ? `da ${authorOf(a)}` : null,
                  `mov. ${a.movimento}`,
                  cancelled ? `storno mov. ${a.annullato_da}` : null,
                ]
                  .filter(Boolean)
                  .join(" · ")}
              </Text>
            </div>
            {cancelled ? (
              <Badge color="gray" variant="light" style={{ flexShrink: 0 }} data-testid={`annullato-${a.movimento}`}>
                Annullato
              </Badge>
            ) : (
              canCancel && (
                <Button
                  size="sm"
                  color="red"
                  variant="light"
                  style={{ flexShrink: 0 }}
                  onClick={() => (setDone(null), setCancelling(toCancel(a)))}
                  data-testid={`annulla-arrivo-${a.movimento}`}
                >
                  Annulla
                </Button>
              )
            )}
          </Group>
        );
      })}
      {done && (
        <Alert color="green" variant="light" p="xs" data-testid={`annullamento-${row.numero_riga}`}>
          {done}
        </Alert>
      )}
      {cancelling && (
        <CancelArrivalDialog
          arrival={cancelling}
          onClose={() => setCancelling(null)}
          onDone={(out) => {
            setDone(cancelledNote(cancelling, out));
            setCancelling(null);
          }}
        />
      )}
    </Stack>
  );
}
