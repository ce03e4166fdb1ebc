"use client";
import { Alert, Stack, Table, Text, Title } from "@mantine/core";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Fragment } from "react";
import { DataTable } from "../../data-table";
import { describeError } from "../../errors";
import { instantToSecond } from "../../format";
import { useTRPC } from "../../trpc";
import { Pager, usePages } from "./pager";
import { Answer, type Attempt, outcome } from "./shared";

/** Every attempt to deliver to an endpoint, newest first, with the receiver's answer. */
export function Attempts({ id }: { id: number }) {
  const trpc = useTRPC();
  const pages = usePages();
  const query = useQuery({
    ...trpc.webhooks.attempts.queryOptions({ id, ...pages.bound }, { refetchInterval: 5_000 }),
    placeholderData: keepPreviousData,
  });
  const tentativi: Attempt[] = query.data?.tentativi ?? [];
  return (
    <Stack gap="xs" data-testid="tentativi-webhook">
      <Title order={4}>Registro dei tentativi</Title>
      {query.error && <Alert color="red">{describeError(query.error).messaggio}</Alert>}
      {query.isSuccess && tentativi.length === 0 ? (
        <Text size="sm" c="dimmed">
          Nessun tentativo ancora.
        </Text>
      ) : (
        <DataTable
          minWidth={300}
          verticalSpacing="xs"
          columns={[
            { label: "Quando" },
            { label: "Evento", num: true, visibleFrom: "sm" },
            { label: "Esito" },
            { label: "Durata", num: true },
          ]}
        >
          {tentativi.map((a) => (
            // The answer on a row of its own, the table's whole width: a kilobyte is readable on a handheld too.
            <Fragment key={a.id}>
              <Table.Tr data-testid={`tentativo-${a.id}`} style={a.risposta ? { borderBottom: "none" } : undefined}>
                <Table.Td>
                  <Text size="sm" data-testid="quando-tentativo">
                    {instantToSecond(a.iniziato_il)}
                  </Text>
                  <Text size="xs" c="dimmed" hiddenFrom="sm">
                    evento {a.sequenza}
                  </Text>
                </Table.Td>
                <Table.Td className="num" visibleFrom="sm">
                  {a.sequenza}
                </Table.Td>
                <Table.Td>
                  <Text size="sm" fw={600} c={a.esito === "consegnato" ? "green.8" : "red.8"}>
                    {outcome(a.stato_http, a.esito)}
                  </Text>
                </Table.Td>
                <Table.Td className="num">
                  <Text size="sm" className="num" style={{ whiteSpace: "nowrap" }}>
                    {a.durata_ms} ms
                  </Text>
                </Table.Td>
              </Table.Tr>
              {a.risposta && (
                <Table.Tr data-testid={`risposta-${a.id}`}>
                  <Table.Td colSpan={4} pt={0}>
                    <Answer text={a.risposta} />
                  </Table.Td>
                </Table.Tr>
              )}
            </Fragment>
          ))}
        </DataTable>
      )}
      <Pager pages={pages} next={query.data?.prima} />
    </Stack>
  );
}
