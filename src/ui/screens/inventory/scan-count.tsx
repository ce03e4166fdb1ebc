"use client";
import { ActionIcon, Button, Card, Checkbox, Group, Stack, Text } from "@mantine/core";
import { useRef } from "react";
import { useScanner } from "../../scanner/use-scanner";
import { TypedInput } from "../../typed-input";
import { FeedbackPanel } from "../receiving/feedback-panel";
import { ScanField } from "../receiving/scan-field";
import type { useScanCount } from "./use-scan-count";

/**
 * The count by scan: the location read, "count it whole", then each (article, lot) with its quantity. A bin
 * read and found empty is said with "Ubicazione vuota" (`onEmpty`): counted whole with no rows, every article
 * and lot it holds counted zero, shown in the preview before anyone confirms it.
 */
export function ScanCount({ sc, onEmpty }: { sc: ReturnType<typeof useScanCount>; onEmpty: (ubicazione: string) => void }) {
  const scanRef = useRef<HTMLInputElement | null>(null);
  // Listening only while counting by scanner: a file or pasted text is typed as it is.
  useScanner((code) => sc.enqueue(code));
  return (
    <Stack gap="sm" data-testid="conteggio-lettore">
      <ScanField
        inputRef={scanRef}
        busy={false}
        lastCode={null}
        onEnter={(code) => code && sc.enqueue(code)}
        label={sc.scope.ubicazione ? "Leggere la merce dell'ubicazione" : "Leggere l'etichetta dell'ubicazione, poi la merce"}
      />
      {sc.feedback && <FeedbackPanel feedback={sc.feedback} />}
      <Text data-testid="ubicazione-contata">
        Ubicazione: {sc.scope.ubicazione ? <b>{sc.scope.ubicazione}</b> : <i>nessuna (si contano le righe lette, dove sono)</i>}
      </Text>
      {sc.scope.ubicazione && (
        <Checkbox
          size="md"
          label={`Conta l'intera ubicazione: ciò che ${sc.scope.ubicazione} contiene e non viene letto è contato zero`}
          checked={sc.scope.completa}
          onChange={(e) => sc.setCompleta(e.currentTarget.checked)}
          data-testid="conta-intera"
        />
      )}
      {sc.scope.ubicazione && sc.lines.length === 0 && (
        <Stack gap={4}>
          <Button
            size="lg"
            variant="light"
            color="orange"
            fullWidth
            onClick={() => sc.scope.ubicazione && onEmpty(sc.scope.ubicazione)}
            data-testid="ubicazione-vuota"
          >
            Ubicazione vuota
          </Button>
          <Text size="xs" c="dimmed">
            Nessuna merce in {sc.scope.ubicazione}: ciò che vi risulta va a zero. Prima l&apos;anteprima, poi la conferma.
          </Text>
        </Stack>
      )}
      {sc.lines.map((l) => (
        <Card key={l.key} withBorder padding="xs" data-testid="riga-contata">
          <Group justify="space-between" wrap="nowrap" align="flex-start">
            <div style={{ minWidth: 0 }}>
              <Text fw={700} style={{ overflowWrap: "anywhere" }}>
                {l.codice}
              </Text>
              <Text size="xs" c="dimmed">
                {l.descrizione}
              </Text>
            </div>
            <ActionIcon variant="subtle" color="red" aria-label={`Togli ${l.codice}`} onClick={() => sc.removeLine(l.key)}>
              ✕
            </ActionIcon>
          </Group>
          <Group grow gap="xs" mt={4}>
            <TypedInput
              label={`Contato (${l.unita})`}
              value={l.contato}
              onChange={(v) => sc.setLine(l.key, "contato", v)}
              inputMode="decimal"
              autoComplete="off"
              data-testid={`contato-${l.codice}`}
            />
            {l.gestione_lotti && (
              <TypedInput label="Lotto" value={l.lotto} onChange={(v) => sc.setLine(l.key, "lotto", v)} autoComplete="off" />
            )}
          </Group>
        </Card>
      ))}
    </Stack>
  );
}
