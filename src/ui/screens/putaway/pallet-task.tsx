"use client";
import { Card, Stack, Table, Text } from "@mantine/core";
import { memo } from "react";
import { count, qty } from "../../format";
import { type Pallet, palletProposal } from "./lookup";
import { ConfirmPutaway, ProposalAndDestination } from "./putaway-parts";

/**
 * A pallet read by its SSCC: what of it still waits in receiving, where it should go (one destination: a
 * pallet moves whole), where it will go. No quantity: all of it moves, in one operation.
 */
export const PalletTask = memo(function PalletTask({
  pallet,
  destination,
  saving,
  onConfirm,
  onCancel,
}: {
  pallet: Pallet;
  destination: string | null;
  saving: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <Card withBorder padding="md" data-testid="collo-da-stoccare" data-sscc={pallet.sscc}>
      <Stack gap={6}>
        <Text fw={800} size="lg" lh={1.2} style={{ overflowWrap: "anywhere" }}>
          Collo {pallet.sscc}
        </Text>
        <Text size="sm">
          Da <b data-testid="ubicazione-origine">{pallet.parts[0]?.row.ubicazione}</b>: {count(pallet.parts.length, "riga", "righe")}
        </Text>
        <Table withRowBorders={false} verticalSpacing={2} horizontalSpacing={4} fz="sm" data-testid="righe-collo">
          <Table.Tbody>
            {pallet.parts.map((p) => (
              <Table.Tr key={p.row.id}>
                <Table.Td style={{ overflowWrap: "anywhere" }}>
                  <b>{p.row.articolo.codice}</b>
                  {p.row.lotto ? ` · ${p.row.lotto}` : ""}
                </Table.Td>
                <Table.Td ta="right" style={{ whiteSpace: "nowrap" }}>
                  {qty(p.quantita)} {p.row.unita}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        <ProposalAndDestination
          proposal={palletProposal(pallet)}
          proposalNote="riga più grande del collo"
          noProposal="gli articoli del collo non sono ancora in nessuna ubicazione"
          destination={destination}
        />
        <ConfirmPutaway destination={destination} saving={saving} onConfirm={onConfirm} onCancel={onCancel} />
      </Stack>
    </Card>
  );
});
