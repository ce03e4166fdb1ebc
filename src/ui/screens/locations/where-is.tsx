"use client";
import { Anchor, Loader, Popover, Stack, Text } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { describeError } from "../../errors";
import { day, qty } from "../../format";
import { useTRPC } from "../../trpc";

export const TYPE_LABEL = { ricevimento: "ricevimento", stoccaggio: "stoccaggio", quarantena: "quarantena" } as const;

/**
 * Where one article lies, in every warehouse that manages locations: each location with its quantity and,
 * under it, its lots (nearest expiry first). The article detail shows it inline, "Dov'è?" in a small panel.
 */
export function WhereIsList({ articolo }: { articolo: number }) {
  const trpc = useTRPC();
  const query = useQuery(trpc.locationsStock.whereIs.queryOptions({ id: String(articolo) }));
  if (query.isLoading) return <Loader size="xs" />;
  if (query.error) return <Text c="red">{describeError(query.error).messaggio}</Text>;
  const magazzini = query.data?.magazzini ?? [];
  if (magazzini.length === 0)
    return (
      <Text size="sm" c="dimmed">
        Nessun magazzino gestisce le ubicazioni.
      </Text>
    );
  return (
    <Stack gap="xs" data-testid={`dove-${articolo}`}>
      {magazzini.map((m) => (
        <Stack key={m.magazzino.id} gap={2} data-testid={`dove-magazzino-${m.magazzino.codice}`}>
          <Text size="sm" fw={700}>
            {m.magazzino.codice} · {qty(m.giacenza)} in tutto
          </Text>
          {m.ubicazioni.length === 0 && (
            <Text size="sm" c="dimmed">
              In nessuna ubicazione.
            </Text>
          )}
          {m.ubicazioni.map((u) => (
            <div key={u.ubicazione} data-testid={`dove-ubicazione-${u.ubicazione}`}>
              <Text size="sm">
                <b>{u.ubicazione}</b>
                {u.tipo === "stoccaggio" ? "" : ` (${TYPE_LABEL[u.tipo]})`}: <b>{qty(u.quantita)}</b>
              </Text>
              {u.lotti.map((l) => (
                <Text key={l.lotto} size="xs" c="dimmed" pl="sm">
                  lotto {l.lotto}
                  {l.scadenza ? `, scad. ${day(l.scadenza)}` : ""}: {qty(l.quantita)}
                </Text>
              ))}
            </div>
          ))}
        </Stack>
      ))}
    </Stack>
  );
}

/**
 * A click a clickable row around must leave alone: on "Dov'è?" (`data-own-click`) or in its panel, which lies
 * in a portal outside the row's DOM while React still bubbles its events through the row.
 */
export const ownClick = (e: { target: EventTarget; currentTarget: Element }) =>
  !e.currentTarget.contains(e.target as Node) || (e.target as Element).closest("[data-own-click]") !== null;

/** "Dov'è?": a link that opens WhereIsList in a small panel, beside an article search. */
export function WhereIsButton({ articolo, codice }: { articolo: number; codice: string }) {
  return (
    <Popover width={300} position="bottom-start" shadow="md" withinPortal>
      <Popover.Target>
        <Anchor component="button" type="button" size="sm" data-testid={`dov-e-${codice}`} data-own-click>
          Dov'è?
        </Anchor>
      </Popover.Target>
      <Popover.Dropdown data-testid="pannello-dov-e">
        <Text size="sm" fw={600} mb={4}>
          Dov'è {codice}?
        </Text>
        <WhereIsList articolo={articolo} />
      </Popover.Dropdown>
    </Popover>
  );
}
