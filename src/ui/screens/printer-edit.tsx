"use client";
import { Alert, Button, Group, Modal, Select, Stack, Text, TextInput } from "@mantine/core";
import { useState } from "react";
import { useTRPC } from "../trpc";
import { useWrite } from "../write-key";

export const PRINTER_SIZES = ["100x50", "100x150", "50x25"] as const;
type Size = (typeof PRINTER_SIZES)[number];

export interface EditablePrinter {
  id: number;
  nome: string;
  indirizzo: string;
  dimensione: Size;
  attiva: boolean;
}

/**
 * An administrator's change of one printer (/stampanti): name, address, label size, and its deactivation or
 * reactivation. Only the fields that differ are sent, so the administrative log names exactly what changed.
 */
export function PrinterEdit({ printer, onClose, onSaved }: { printer: EditablePrinter; onClose: () => void; onSaved: () => void }) {
  const trpc = useTRPC();
  const [nome, setNome] = useState(printer.nome);
  const [indirizzo, setIndirizzo] = useState(printer.indirizzo);
  const [dimensione, setDimensione] = useState<Size>(printer.dimensione);
  const saving = useWrite((context) => trpc.printers.update.mutationOptions({ trpc: { context } }));
  const toggling = useWrite((context) => trpc.printers.setActive.mutationOptions({ trpc: { context } }));

  async function save() {
    const out = await saving.run({
      id: printer.id,
      ...(nome.trim() !== printer.nome ? { nome } : {}),
      ...(indirizzo.trim() !== printer.indirizzo ? { indirizzo } : {}),
      ...(dimensione !== printer.dimensione ? { dimensione } : {}),
    });
    if (!out) return;
    onSaved();
    onClose();
  }

  async function toggle() {
    const out = await toggling.run({ id: printer.id, attiva: !printer.attiva });
    if (!out) return;
    onSaved();
    onClose();
  }

  const error = saving.error ?? toggling.error;
  return (
    <Modal opened onClose={onClose} title={`Modifica la stampante ${printer.nome}`} centered>
      <Stack gap="sm">
        <TextInput label="Nome" value={nome} onChange={(e) => setNome(e.currentTarget.value)} data-testid="modifica-nome" />
        <TextInput
          label="Indirizzo (host:porta)"
          description="Il servizio si collegherà a questo indirizzo: il cambio resta nel registro amministrativo."
          value={indirizzo}
          onChange={(e) => setIndirizzo(e.currentTarget.value)}
          data-testid="modifica-indirizzo"
        />
        <Select
          label="Etichette (mm)"
          data={[...PRINTER_SIZES]}
          value={dimensione}
          onChange={(v) => v && setDimensione(v as Size)}
          allowDeselect={false}
          data-testid="modifica-dimensione"
        />
        {error && <Alert color="red">{error}</Alert>}
        <Group justify="space-between" wrap="wrap">
          <Button
            variant="light"
            color={printer.attiva ? "red" : "green"}
            onClick={() => void toggle()}
            loading={toggling.saving}
            data-testid="attiva-stampante"
          >
            {printer.attiva ? "Disattiva" : "Riattiva"}
          </Button>
          <Group gap="sm">
            <Button variant="default" onClick={onClose}>
              Annulla
            </Button>
            <Button
              onClick={() => void save()}
              loading={saving.saving}
              disabled={!nome.trim() || !indirizzo.trim()}
              data-testid="salva-stampante"
            >
              Salva
            </Button>
          </Group>
        </Group>
        {printer.attiva && (
          <Text size="xs" c="dimmed">
            Disattivata, la stampante non è più proposta ai dispositivi e rifiuta le stampe; quelle ancora in coda finiscono fallite, da
            ristampare su un&apos;altra.
          </Text>
        )}
      </Stack>
    </Modal>
  );
}
