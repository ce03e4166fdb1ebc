"use client";
import { Loader, Stack, Text } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { describeError } from "../../errors";
import { count, qty } from "../../format";
import { useTRPC } from "../../trpc";

/**
 * Who holds an article now (an article's detail): the rows of the active reservations holding it, oldest first,
 * with reference, customer, warehouse and held quantity; or that none does.
 */
export function ArticleHolders({ articolo }: { articolo: number }) {
  const trpc = useTRPC();
  const query = useQuery(trpc.reservations.holders.queryOptions({ articolo }));
  if (query.isLoading) return <Loader size="xs" />;
  if (query.error) return <Text c="red">{describeError(query.error).messaggio}</Text>;
  const data = query.data;
  if (!data || data.totale_righe === 0)
    return (
      <Text size="sm" c="dimmed" data-testid={`prenotazioni-articolo-${articolo}`}>
        Nessuna prenotazione attiva tiene questo articolo.
      </Text>
    );
  const more = data.totale_righe - data.righe.length;
  return (
    <Stack gap={4} data-testid={`prenotazioni-articolo-${articolo}`}>
      <Text size="sm" data-testid="totale-prenotata">
        Prenotata in tutto <b>{qty(data.totale_prenotata)}</b> ({count(data.totale_righe, "riga", "righe")} di prenotazione)
      </Text>
      {data.righe.map((r) => (
        // The quantity on the first line, beside the reference: a long customer name wraps on its own line below.
        <div key={`${r.prenotazione}-${r.numero_riga}`} data-testid={`tiene-${r.riferimento}`}>
          <Text size="sm" style={{ overflowWrap: "anywhere" }}>
            <b>{r.riferimento}</b> · {r.magazzino.codice}
            {r.lotto ? ` · lotto ${r.lotto}` : ""}: <b data-testid="quantita">{qty(r.prenotata)}</b>
          </Text>
          <Text size="xs" c="dimmed" pl="sm" style={{ overflowWrap: "anywhere" }} data-testid="cliente">
            {r.cliente.nome}
          </Text>
        </div>
      ))}
      {more > 0 && (
        <Text size="xs" c="dimmed">
          … e altre {count(more, "riga", "righe")}, le più recenti.
        </Text>
      )}
    </Stack>
  );
}
