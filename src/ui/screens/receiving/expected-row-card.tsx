"use client";
import { Badge, Box, Button, Card, Group, SimpleGrid, Stack, Text, TextInput } from "@mantine/core";
import { useMediaQuery } from "@mantine/hooks";
import { useIsMutating } from "@tanstack/react-query";
import { memo } from "react";
import { DateField } from "../../date-field";
import { day, qty } from "../../format";
import { useTRPC } from "../../trpc";
import { countedExcess } from "./row-rules";
import type { ArrivalFields, Current } from "./types";

/** Counted past the remainder: what Enter will do with it, said on the card. */
function overCount(current: Current, quantita: string): string {
  const excess = countedExcess(current, quantita);
  return excess ? ` Invio registra ${qty(excess.riceve)} e annota ${qty(excess.eccedente)} come eccedente.` : "";
}

function Figure({ label, value, testId, color }: { label: string; value: string; testId: string; color?: string }) {
  return (
    <Box>
      <Text size="xs" c="dimmed" tt="uppercase">
        {label}
      </Text>
      <div className="big-number" data-testid={testId} style={color ? { color } : undefined}>
        {value}
      </div>
    </Box>
  );
}

/**
 * Registra, showing the registration running. It watches the call itself (the mutation cache, by the
 * procedure's key), so that the card around it does not render twice for every registration.
 */
function RegisterButton({ onRegister }: { onRegister: () => void }) {
  const trpc = useTRPC();
  const registering = useIsMutating({ mutationKey: trpc.arrivals.register.mutationKey() }) > 0;
  return (
    <Button size="xl" fullWidth onClick={onRegister} loading={registering} data-testid="registra">
      Registra
    </Button>
  );
}

/**
 * The order row the scan found: its figures, the quantity (and lot) to confirm, Registra. Memoised: the
 * screen renders at every scan and outcome, the card only when its row, its fields or its codes waiting change.
 */
export const ExpectedRowCard = memo(function ExpectedRowCard({
  current,
  values,
  setField,
  magazzino,
  warehouseName,
  held,
  refs,
  onRegister,
  onLotEnter,
  onLeave,
}: {
  current: Current;
  values: ArrivalFields;
  setField: <K extends keyof ArrivalFields>(name: K, value: ArrivalFields[K]) => void;
  magazzino: string | null;
  /** A warehouse's code (useWarehouses nameOf): the order's own, when it is not the one receiving. */
  warehouseName: (id: number) => string;
  /** Codes read while this row waits: read once it is registered or left. */
  held: string[];
  refs: {
    quantity: React.RefObject<HTMLInputElement | null>;
    lot: React.RefObject<HTMLInputElement | null>;
    expiry: React.RefObject<HTMLInputElement | null>;
  };
  onRegister: () => void;
  onLotEnter: () => void | Promise<void>;
  onLeave: () => void;
}) {
  const { row, order } = current;
  // On a handheld the calendar opens below the field, kept inside the screen: above it, it covered the row and was cut at 360 px.
  const narrow = useMediaQuery("(max-width: 48em)");
  const onEnter = (action: () => void) => (e: React.KeyboardEvent<HTMLInputElement>) => {
    if (e.key === "Enter") {
      e.preventDefault();
      action();
    }
  };
  const input = (name: keyof ArrivalFields, action = onRegister) => ({
    value: values[name],
    onChange: (e: React.ChangeEvent<HTMLInputElement>) => setField(name, e.currentTarget.value),
    onKeyDown: onEnter(action),
    size: "lg" as const,
  });
  return (
    <Card withBorder shadow="sm" padding="md" data-testid="riga-attesa">
      <Stack gap="xs">
        <Group justify="space-between" wrap="wrap" gap={4}>
          <Text size="sm" c="dimmed">
            {order.fornitore.nome} · ordine <b>{order.numero}</b> del {day(order.data)}
          </Text>
          <Badge variant="outline">{row.etichetta}</Badge>
        </Group>
        <div>
          <Text fw={800} size="xl" data-testid="articolo-codice">
            {row.articolo.codice}
          </Text>
          <Text>{row.descrizione}</Text>
        </div>
        <SimpleGrid cols={3} spacing="xs">
          <Figure label="Ordinata" value={qty(row.ordinata)} testId="ordinata" />
          <Figure label="Arrivata" value={qty(row.arrivata)} testId="arrivata" />
          <Figure label="Residua" value={qty(row.residua)} testId="residua" color="var(--mantine-color-indigo-7)" />
        </SimpleGrid>
        {magazzino && Number(magazzino) !== order.magazzino && (
          <Text size="md" fw={700} c="orange.9" data-testid="riga-altro-magazzino">
            Riga per {warehouseName(order.magazzino)}: l&apos;ordine va ricevuto in quel magazzino, non in{" "}
            {warehouseName(Number(magazzino))}.
          </Text>
        )}
        <SimpleGrid cols={row.chiede_lotto ? 2 : 1} spacing="sm">
          <TextInput
            ref={refs.quantity}
            label="Quantità"
            inputMode="decimal"
            {...input("quantita")}
            onFocus={(e) => e.currentTarget.select()}
            data-testid="campo-quantita"
          />
          {row.chiede_lotto && (
            <TextInput
              ref={refs.lot}
              label="Lotto"
              {...input("lotto", () => void onLotEnter())}
              data-scan="lotto"
              autoComplete="off"
              autoCapitalize="characters"
              autoCorrect="off"
              spellCheck={false}
              enterKeyHint="next"
              data-testid="campo-lotto"
            />
          )}
        </SimpleGrid>
        {row.chiede_lotto && (
          <DateField
            ref={refs.expiry}
            label="Scadenza"
            // The calendar takes the field's size: at "lg" its seven columns overflow a 360 px screen.
            size={narrow ? "md" : "lg"}
            value={values.scadenza}
            onChange={(v) => setField("scadenza", v)}
            onKeyDown={onEnter(onRegister)}
            popoverProps={
              narrow
                ? { position: "bottom", middlewares: { flip: false, shift: { padding: 8 }, inline: false } }
                : { position: "top-start" }
            }
            data-testid="campo-scadenza"
          />
        )}
        <Text
          size="sm"
          c={overCount(current, values.quantita) ? "orange.9" : current.confirmed ? "teal.9" : "dimmed"}
          data-testid="stato-quantita"
        >
          {current.counted > 1
            ? `Contati ${current.counted} leggendo l'articolo.${overCount(current, values.quantita)}`
            : current.confirmed
              ? "Quantità scritta."
              : "Quantità proposta: il residuo. Invio la registra; leggere l'articolo a ogni pezzo per contarlo."}
        </Text>
        {held.length > 0 && (
          <Text size="sm" c="orange.9" fw={600} data-testid="codici-in-attesa">
            Dopo questa riga {held.length === 1 ? "sarà letto il codice" : "saranno letti i codici"} {held.join(", ")}.
          </Text>
        )}
        <RegisterButton onRegister={onRegister} />
        <Button variant="subtle" color="gray" onClick={onLeave}>
          Lascia questa riga
        </Button>
      </Stack>
    </Card>
  );
});
