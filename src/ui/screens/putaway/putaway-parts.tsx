"use client";
import { Badge, Button, Card, Group, Stack, Text, TextInput, Title } from "@mantine/core";
import { memo } from "react";
import type { WorklistRow } from "@/server/modules/putaway/putaway.schemas";
import { day, instant, qty } from "../../format";
import type { QueueState } from "../../offline/device-queue";
import { round3 } from "./lookup";
import { reasonOf } from "./use-putaway";
import { isPalletRequest, type QueuedPutaway } from "./use-putaway-queue";

/**
 * Where the goods should go (the proposal, large enough to read with the handheld at arm's length, and its
 * reason) and where they will go (the location label read): the same two lines for goods and for a pallet.
 */
export function ProposalAndDestination({
  proposal,
  proposalNote,
  noProposal,
  destination,
}: {
  proposal: WorklistRow["proposta"];
  /** Said after the proposal's reason: what the proposal was taken from. */
  proposalNote?: string;
  /** Why there is no proposal. */
  noProposal: string;
  destination: string | null;
}) {
  return (
    <>
      <Text data-testid="proposta">
        Proposta:{" "}
        {proposal ? (
          <>
            <b style={{ fontSize: "1.3rem" }}>{proposal.ubicazione}</b> ({reasonOf(proposal)}
            {proposalNote ? `, ${proposalNote}` : ""})
          </>
        ) : (
          `nessuna (${noProposal})`
        )}
      </Text>
      <Text size="lg" data-testid="destinazione">
        Destinazione: {destination ? <b>{destination}</b> : <i>leggere l'etichetta dell'ubicazione</i>}
      </Text>
    </>
  );
}

/** Conferma, usable once the destination's label was read, and Annulla: the same for goods and for a pallet. */
export function ConfirmPutaway({
  destination,
  saving,
  onConfirm,
  onCancel,
}: {
  destination: string | null;
  saving: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <>
      {/* One above the other: at 360 px side by side, "Conferma" would not fit its button. */}
      <Button size="lg" fullWidth onClick={onConfirm} loading={saving} disabled={!destination} data-testid="conferma-stoccaggio">
        Conferma
      </Button>
      <Button size="md" fullWidth variant="default" onClick={onCancel}>
        Annulla
      </Button>
    </>
  );
}

/** The goods shown: where they are, where they should go, where they will go, how many. */
export const PutawayTask = memo(function PutawayTask({
  row,
  left,
  destination,
  quantita,
  saving,
  quantityRef,
  onQuantity,
  onConfirm,
  onCancel,
}: {
  row: WorklistRow;
  left: number;
  destination: string | null;
  quantita: string;
  saving: boolean;
  quantityRef: React.RefObject<HTMLInputElement | null>;
  onQuantity: (v: string) => void;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <Card withBorder padding="md" data-testid="merce-da-stoccare">
      <Stack gap={6}>
        <Text fw={800} size="xl" lh={1.2} style={{ overflowWrap: "anywhere" }}>
          {row.articolo.codice}
        </Text>
        <Text size="sm">{row.descrizione}</Text>
        {row.lotto && (
          <Text size="sm">
            Lotto <b>{row.lotto}</b>
            {row.scadenza ? `, scadenza ${day(row.scadenza)}` : ""}
          </Text>
        )}
        <Text>
          Da <b data-testid="ubicazione-origine">{row.ubicazione}</b>: {qty(left)} {row.unita}
        </Text>
        <ProposalAndDestination
          proposal={row.proposta}
          noProposal="l'articolo non è ancora in nessuna ubicazione"
          destination={destination}
        />
        <TextInput
          ref={quantityRef}
          label={`Quantità (${row.unita}), tutto: ${qty(left)}`}
          value={quantita}
          onChange={(e) => onQuantity(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter") {
              e.preventDefault();
              onConfirm();
            }
          }}
          inputMode="decimal"
          autoComplete="off"
          data-testid="campo-quantita"
        />
        <ConfirmPutaway destination={destination} saving={saving} onConfirm={onConfirm} onCancel={onCancel} />
      </Stack>
    </Card>
  );
});

/** What waits in the receiving locations, oldest arrival first: a tap picks another row than the scan's. */
export const WaitingGoods = memo(function WaitingGoods({
  rows,
  queued,
  chosen,
  readAt,
  onChoose,
}: {
  rows: WorklistRow[];
  queued: ReadonlyMap<number, number>;
  chosen: number | null;
  readAt: string | null;
  onChoose: (r: WorklistRow) => void;
}) {
  return (
    <Stack gap="xs">
      <Title order={4}>Da stoccare ({rows.length})</Title>
      {readAt && (
        <Text size="xs" c="dimmed">
          Elenco del {instant(readAt)}
        </Text>
      )}
      {rows.length === 0 && <Text c="dimmed">Nulla in attesa nelle ubicazioni di ricevimento.</Text>}
      {rows.slice(0, 50).map((r) => (
        <Card
          key={r.id}
          withBorder
          padding="xs"
          onClick={() => onChoose(r)}
          style={{ cursor: "pointer", borderColor: r.id === chosen ? "var(--mantine-color-indigo-6)" : undefined }}
          data-testid={`da-stoccare-${r.id}`}
        >
          <Group justify="space-between" wrap="nowrap" gap="xs">
            <div style={{ minWidth: 0 }}>
              <Text fw={700} style={{ overflowWrap: "anywhere" }}>
                {r.articolo.codice}
                {r.lotto ? ` · ${r.lotto}` : ""}
              </Text>
              <Text size="xs" c="dimmed">
                {r.ubicazione} · arrivato {instant(r.arrivato_il)}
                {r.proposta ? ` · → ${r.proposta.ubicazione}` : ""}
              </Text>
            </div>
            <Text fw={700} style={{ whiteSpace: "nowrap" }}>
              {qty(round3(Number(r.quantita) - (queued.get(r.id) ?? 0)))} {r.unita}
            </Text>
          </Group>
        </Card>
      ))}
    </Stack>
  );
});

const STATE: Record<QueueState, { label: string; color: string }> = {
  in_coda: { label: "In coda", color: "indigo" },
  incerto: { label: "Da verificare", color: "orange" },
  rifiutato: { label: "Rifiutato", color: "red" },
  da_decidere: { label: "Da decidere", color: "red" },
};

/** The putaways kept on the handheld until the service confirms them; a refused one waits for a decision. */
export const QueuedPutaways = memo(function QueuedPutaways({
  items,
  online,
  onDiscard,
  onSendAgain,
}: {
  items: QueuedPutaway[];
  online: boolean;
  onDiscard: (q: QueuedPutaway) => void;
  onSendAgain: (q: QueuedPutaway) => void;
}) {
  if (items.length === 0) return null;
  return (
    <Stack gap="xs" data-testid="coda-stoccaggi">
      <Title order={4}>Da inviare ({items.length})</Title>
      {!online && <Text size="sm">Senza rete: saranno inviati appena torna.</Text>}
      {items.map((q) => (
        <Card key={q.id} withBorder padding="xs" data-testid="stoccaggio-in-coda" data-stato={q.stato}>
          <Group justify="space-between" wrap="nowrap">
            <Text size="sm" style={{ overflowWrap: "anywhere" }}>
              {isPalletRequest(q.richiesta)
                ? `Collo ${q.richiesta.sscc} → ${q.richiesta.a}`
                : `${qty(q.richiesta.quantita)} × ${q.richiesta.codice}: ${q.richiesta.da} → ${q.richiesta.a}`}
            </Text>
            <Badge color={STATE[q.stato].color} style={{ flexShrink: 0 }}>
              {STATE[q.stato].label}
            </Badge>
          </Group>
          {q.errore && (
            <Text size="sm" c="red.8">
              {q.errore.messaggio}
            </Text>
          )}
          {(q.stato === "rifiutato" || q.stato === "da_decidere") && (
            <Group mt={4}>
              <Button size="xs" onClick={() => onSendAgain(q)}>
                Invia di nuovo
              </Button>
              <Button size="xs" variant="default" onClick={() => onDiscard(q)}>
                Scarta
              </Button>
            </Group>
          )}
        </Card>
      ))}
    </Stack>
  );
});
