"use client";
import { Badge, Button, Checkbox, Group, Stack, Table, Text, TextInput, Title } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { day } from "../format";
import { useTRPC } from "../trpc";

const STATE_COLOR = { aperto: "blue", parziale: "yellow", evaso: "gray" } as const;

/** Purchase orders, to print their row labels for the receiving bay. */
export function OrdersScreen() {
  const trpc = useTRPC();
  const [cerca, setCerca] = useState("");
  const [debounced] = useDebouncedValue(cerca.trim(), 300);
  const [evasi, setEvasi] = useState(false);
  const query = useQuery({
    ...trpc.orders.list.queryOptions({ ...(debounced ? { cerca: debounced } : {}), ...(evasi ? { includi_evasi: true } : {}) }),
    placeholderData: keepPreviousData,
  });
  return (
    <Stack gap="md" maw={1000}>
      <Title order={2}>Etichette degli ordini</Title>
      <Text c="dimmed" size="sm">
        Per ogni riga d&apos;ordine un&apos;etichetta con il codice a barre R&lt;riga&gt; e l&apos;EAN dell&apos;articolo: al ricevimento si
        legge dalla carta.
      </Text>
      <Group align="end">
        <TextInput label="Cerca numero o fornitore" value={cerca} onChange={(e) => setCerca(e.currentTarget.value)} style={{ flex: 1 }} />
        <Checkbox label="Anche evasi" checked={evasi} onChange={(e) => setEvasi(e.currentTarget.checked)} mb={10} />
      </Group>
      <Table.ScrollContainer minWidth={560}>
        <Table striped verticalSpacing="sm" data-testid="tabella-ordini">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Ordine</Table.Th>
              <Table.Th>Fornitore</Table.Th>
              <Table.Th>Magazzino</Table.Th>
              <Table.Th>Stato</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {(query.data?.ordini ?? []).map((o) => (
              <Table.Tr key={o.id}>
                <Table.Td>
                  <Text fw={700}>{o.numero}</Text>
                  <Text size="xs" c="dimmed">
                    {day(o.data)} · {o.righe} righe
                  </Text>
                </Table.Td>
                <Table.Td>{o.fornitore.nome}</Table.Td>
                <Table.Td>{o.magazzino.codice}</Table.Td>
                <Table.Td>
                  <Badge color={STATE_COLOR[o.stato]} variant="light">
                    {o.stato}
                  </Badge>
                </Table.Td>
                <Table.Td>
                  <Button
                    component={Link}
                    href={`/ordini/${o.id}/etichette`}
                    size="sm"
                    variant="light"
                    data-testid={`etichette-${o.numero}`}
                  >
                    Etichette
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}

export function PrintButton() {
  return (
    <Button size="lg" onClick={() => window.print()} className="no-print" data-testid="stampa">
      Stampa
    </Button>
  );
}
