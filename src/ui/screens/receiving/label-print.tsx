"use client";
import { Alert, Badge, Button, Group, Paper, Select, Stack, Switch, Text } from "@mantine/core";
import type { ReactNode } from "react";
import { day, qty } from "../../format";
import { type LabelPrint, lotLabelPdf, palletLabelPdf } from "./use-label-print";

const STATE: Record<string, { color: string; label: string }> = {
  in_coda: { color: "blue", label: "In coda" },
  in_invio: { color: "blue", label: "In stampa…" },
  stampata: { color: "green", label: "Stampata" },
  fallita: { color: "red", label: "Non stampata" },
};

/**
 * A label on offer: what it is for (the children), and its button: to this device's printer, or without one
 * the label as PDF in a new tab, for the browser's print dialog (F2 opens it too).
 */
function PrintOffer({
  l,
  onPrint,
  pdf,
  button,
  testId,
  children,
}: {
  l: LabelPrint;
  onPrint: () => void;
  pdf: string;
  button: string;
  testId: string;
  children: ReactNode;
}) {
  return (
    <Group justify="space-between" gap="xs" wrap="wrap">
      {children}
      {l.printer ? (
        <Button size="md" onClick={onPrint} loading={l.busy} data-testid={testId}>
          {button}
        </Button>
      ) : (
        <Button size="md" component="a" href={pdf} target="_blank" rel="noopener" data-testid={`${testId}-pdf`}>
          Etichetta PDF (F2)
        </Button>
      )}
    </Group>
  );
}

/**
 * The receiving screen's label panel: this device's printer and automatic printing, the label of the lot
 * just received (one tap, or F2) and what became of its job, with "Ristampa" when it failed.
 */
export function LabelAtReceipt({ l }: { l: LabelPrint }) {
  if (l.printers.length === 0 && !l.offer && !l.pallet) return null;
  const state = l.job ? STATE[l.job.stato] : undefined;
  return (
    <Paper withBorder p="sm" data-testid="etichette-ricevimento">
      <Stack gap="xs">
        {l.printers.length > 0 && (
          <Group gap="sm" align="end" wrap="wrap">
            <Select
              label="Stampante di etichette"
              placeholder={l.printers.length === 0 ? "Nessuna stampante registrata" : "Scegliere"}
              data={l.printers.map((p) => ({ value: String(p.id), label: `${p.nome} (${p.dimensione})` }))}
              value={l.printer ? String(l.printer.id) : null}
              onChange={(v) => l.setSettings((s) => ({ ...s, stampante: v === null ? null : Number(v) }))}
              w={{ base: "100%", xs: 280 }}
              data-testid="stampante-etichette"
            />
            <Switch
              label="Stampa automatica su questo dispositivo"
              checked={l.settings.automatica}
              disabled={!l.printer}
              onChange={(e) => {
                const automatica = e.currentTarget.checked;
                l.setSettings((s) => ({ ...s, automatica }));
              }}
              data-testid="stampa-automatica"
            />
          </Group>
        )}
        {l.offer && (
          <PrintOffer
            l={l}
            onPrint={() => l.offer && void l.print(l.offer)}
            pdf={lotLabelPdf(l.offer)}
            button="Stampa etichetta (F2)"
            testId="stampa-etichetta"
          >
            <Text size="sm">
              Lotto <b>{l.offer.lotto}</b> di <b>{l.offer.articolo.codice}</b> · {qty(l.offer.quantita)}
              {l.offer.scadenza ? ` · scad. ${day(l.offer.scadenza)}` : ""}
            </Text>
          </PrintOffer>
        )}
        {l.pallet && (
          <PrintOffer
            l={l}
            onPrint={() => l.pallet && void l.printPallet(l.pallet)}
            pdf={palletLabelPdf(l.pallet)}
            button="Stampa etichetta del collo (F2)"
            testId="stampa-etichetta-collo"
          >
            <Text size="sm" style={{ overflowWrap: "anywhere" }}>
              Collo <b>{l.pallet}</b>
            </Text>
          </PrintOffer>
        )}
        {(l.offer || l.pallet) && !l.printer && (
          <Text size="sm" c="dimmed" data-testid="etichetta-senza-stampante">
            {l.printers.length === 0
              ? "Nessuna stampante di rete: il PDF si stampa dalla finestra di stampa del browser."
              : "Nessuna stampante scelta su questo dispositivo: il PDF si stampa dalla finestra di stampa del browser, oppure scegliere la stampante."}
          </Text>
        )}
        {l.job && state && (
          <Group gap="xs" data-testid="stato-stampa" data-stampa={l.job.id}>
            <Badge color={state.color}>{state.label}</Badge>
            {l.job.motivo && (
              <Text size="sm" c="red.8">
                {l.job.motivo}
              </Text>
            )}
            {l.job.stato === "fallita" && l.job && (
              <Button size="xs" variant="light" onClick={() => l.job && void l.reprintJob(l.job.id)} data-testid="ristampa">
                Ristampa
              </Button>
            )}
          </Group>
        )}
        {l.error && (
          <Alert color="red" p="xs">
            {l.error}
          </Alert>
        )}
      </Stack>
    </Paper>
  );
}
