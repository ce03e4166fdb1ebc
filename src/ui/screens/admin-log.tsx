"use client";
import { Alert, Button, Group, Stack, Table, Text, Title } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { describeError } from "../errors";
import { instant } from "../format";
import { DataTable } from "../data-table";
import { useTRPC } from "../trpc";

const ACTION_LABEL: Record<string, string> = {
  "utente.creato": "utente creato",
  "utente.ruolo": "ruolo cambiato",
  "utente.disattivato": "utente disattivato",
  "utente.riattivato": "utente riattivato",
  "utente.password": "password reimpostata",
  "chiave.creata": "chiave API creata",
  "chiave.revocata": "chiave API revocata",
  "demo.rimossa": "demo rimossa",
  "webhook.creato": "webhook creato",
  "webhook.disattivato": "webhook disattivato",
  "webhook.riattivato": "webhook riattivato",
  "webhook.riconsegna": "webhook: riconsegna",
  "webhook.modificato": "webhook modificato",
  "webhook.eliminato": "webhook eliminato",
  "stampante.aggiunta": "stampante aggiunta",
  "stampante.modificata": "stampante modificata",
  "stampante.disattivata": "stampante disattivata",
  "stampante.riattivata": "stampante riattivata",
};

/** The administrative log (append-only), newest first, a page at a time: on the administrator's screens. */
export function AdminLog() {
  const trpc = useTRPC();
  // The bounds of the pages seen so far: [undefined] is the newest page.
  const [pages, setPages] = useState<(number | undefined)[]>([undefined]);
  const prima = pages[pages.length - 1];
  const log = useQuery(trpc.audit.list.queryOptions({ limite: 25, ...(prima === undefined ? {} : { prima }) }));
  return (
    <Stack gap="xs" data-testid="registro-amministrativo">
      <Title order={3}>Registro delle azioni amministrative</Title>
      {log.error && <Alert color="red">{describeError(log.error).messaggio}</Alert>}
      <DataTable
        minWidth={760}
        striped
        verticalSpacing="xs"
        columns={[{ label: "Azione" }, { label: "Quando" }, { label: "Chi" }, { label: "Su" }, { label: "Dettagli", wide: true }]}
      >
        {(log.data?.voci ?? []).map((v) => (
          <Table.Tr key={v.id}>
            <Table.Td fw={600}>{ACTION_LABEL[v.azione] ?? v.azione}</Table.Td>
            <Table.Td style={{ whiteSpace: "nowrap" }}>{instant(v.creato_il)}</Table.Td>
            <Table.Td>
              {v.autore.nome}
              {v.autore.tipo === "chiave" && (
                <Text span size="xs" c="dimmed">
                  {" "}
                  (chiave)
                </Text>
              )}
            </Table.Td>
            <Table.Td fw={600}>{v.oggetto.nome}</Table.Td>
            <Table.Td>{v.dettagli && <Text size="sm">{v.dettagli}</Text>}</Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
      <Group gap="xs">
        <Button size="xs" variant="default" disabled={pages.length === 1} onClick={() => setPages(pages.slice(0, -1))}>
          Più recenti
        </Button>
        <Button
          size="xs"
          variant="default"
          disabled={!log.data?.prima}
          onClick={() => log.data?.prima && setPages([...pages, log.data.prima])}
        >
          Meno recenti
        </Button>
      </Group>
    </Stack>
  );
}
