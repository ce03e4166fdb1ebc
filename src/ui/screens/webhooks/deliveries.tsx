"use client";
import { Alert, Badge, Box, Button, Group, SegmentedControl, Stack, Table, Text, Title } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { DataTable } from "../../data-table";
import { describeError } from "../../errors";
import { instant } from "../../format";
import { useTRPC } from "../../trpc";
import { Pager, usePages } from "./pager";
import { type Delivery, type DeliveryState, fail, refreshAll, STATE_COLOR, STATE_LABEL } from "./shared";

type StateFilter = "tutte" | DeliveryState;

/** An endpoint's deliveries, newest first, by state; a failed one can be sent again. */
export function Deliveries({ id }: { id: number }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [stato, setStato] = useState<StateFilter>("tutte");
  const pages = usePages();
  const query = useQuery({
    ...trpc.webhooks.deliveries.queryOptions({ id, ...(stato === "tutte" ? {} : { stato }), ...pages.bound }, { refetchInterval: 5_000 }),
    placeholderData: keepPreviousData,
  });
  const replaying = useMutation(trpc.webhooks.replayDelivery.mutationOptions());

  async function replay(d: Delivery) {
    try {
      await replaying.mutateAsync({ id, consegna: d.id });
      notifications.show({ color: "green", message: `L'evento ${d.sequenza} sarà consegnato di nuovo.` });
      await refreshAll(queryClient, trpc);
    } catch (e) {
      fail(e);
    }
  }

  const consegne = query.data?.consegne ?? [];
  return (
    <Stack gap="xs" data-testid="consegne-webhook">
      <Group justify="space-between" gap="xs">
        <Title order={4}>Consegne</Title>
        <SegmentedControl
          size="xs"
          value={stato}
          onChange={(v) => {
            setStato(v as StateFilter);
            pages.reset();
          }}
          data={[
            { value: "tutte", label: "Tutte" },
            { value: "in_attesa", label: "In attesa" },
            { value: "fallita", label: "Fallite" },
            { value: "consegnata", label: "Consegnate" },
          ]}
          data-testid="filtro-consegne"
        />
      </Group>
      {query.error && <Alert color="red">{describeError(query.error).messaggio}</Alert>}
      {query.isSuccess && consegne.length === 0 ? (
        <Text size="sm" c="dimmed">
          Nessuna consegna{stato === "tutte" ? "" : ` ${STATE_LABEL[stato]}`}.
        </Text>
      ) : (
        <DataTable
          minWidth={300}
          verticalSpacing="xs"
          columns={[
            { label: "Evento" },
            { label: "Stato", visibleFrom: "sm" },
            { label: "Tentativi", num: true, visibleFrom: "sm" },
            { label: "Concluso / prossimo tentativo", visibleFrom: "sm" },
            { key: "azioni" },
          ]}
        >
          {consegne.map((d) => {
            const when = d.concluso_il ? instant(d.concluso_il) : d.prossimo_tentativo ? `prossimo ${instant(d.prossimo_tentativo)}` : "—";
            const state = (
              <Badge color={STATE_COLOR[d.stato]} variant="light" tt="none">
                {STATE_LABEL[d.stato]}
              </Badge>
            );
            return (
              <Table.Tr key={d.id} data-testid={`consegna-${d.sequenza}`}>
                <Table.Td>
                  {/* On a handheld one column: the sequence and the state, the type, then attempts and time. */}
                  <Group gap="xs" wrap="nowrap">
                    <Text size="sm" fw={700} className="num" ta="left">
                      {d.sequenza}
                    </Text>
                    <Box hiddenFrom="sm">{state}</Box>
                  </Group>
                  <Text size="xs" c="dimmed" style={{ overflowWrap: "anywhere" }}>
                    {d.tipo}
                  </Text>
                  <Text size="xs" c="dimmed" hiddenFrom="sm">
                    {d.tentativi} {d.tentativi === 1 ? "tentativo" : "tentativi"} · {when}
                  </Text>
                </Table.Td>
                <Table.Td visibleFrom="sm">{state}</Table.Td>
                <Table.Td className="num" visibleFrom="sm">
                  {d.tentativi}
                </Table.Td>
                <Table.Td visibleFrom="sm">
                  <Text size="sm" data-testid="quando-consegna">
                    {when}
                  </Text>
                </Table.Td>
                <Table.Td ta="right">
                  {d.stato === "fallita" && (
                    <Button
                      size="xs"
                      variant="light"
                      onClick={() => void replay(d)}
                      loading={replaying.isPending && replaying.variables?.consegna === d.id}
                      data-testid={`riconsegna-${d.sequenza}`}
                    >
                      Riconsegna
                    </Button>
                  )}
                </Table.Td>
              </Table.Tr>
            );
          })}
        </DataTable>
      )}
      <Pager pages={pages} next={query.data?.prima} />
    </Stack>
  );
}
