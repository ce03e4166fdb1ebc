"use client";
import { Badge, Button, Card, Group, NumberInput, SegmentedControl, Stack, Text, TextInput } from "@mantine/core";
import { useRef, useState } from "react";
import type { PalletOutput } from "../../../server/modules/notices/notices.schemas";
import { count, day, qty } from "../../format";
import type { PalletMark } from "./use-pallet";

const REASONS = [
  { value: "mancante", label: "Manca" },
  { value: "danneggiato", label: "Danneggiato" },
  { value: "errato", label: "Errato" },
] as const;

type Row = PalletOutput["righe"][number];

/** One row's difference, being written: quantity (default the whole row), reason, note. */
function MarkEditor({
  row,
  mark,
  onSave,
  onCancel,
}: {
  row: Row;
  mark?: PalletMark;
  onSave: (m: PalletMark | null) => void;
  onCancel: () => void;
}) {
  const [quantita, setQuantita] = useState<number | string>(mark?.quantita ?? Number(row.quantita));
  const [motivo, setMotivo] = useState<PalletMark["motivo"]>(mark?.motivo ?? "danneggiato");
  const [nota, setNota] = useState(mark?.nota ?? "");
  const valid = typeof quantita === "number" && quantita > 0 && quantita <= Number(row.quantita);
  return (
    <Stack gap="xs" data-testid={`differenza-${row.indice}`}>
      <SegmentedControl
        fullWidth
        // Three reasons side by side within a row's card at 360 px: narrow padding keeps "Errato" whole.
        styles={{ label: { paddingInline: 6 } }}
        value={motivo}
        onChange={(v) => setMotivo(v as PalletMark["motivo"])}
        data={[...REASONS]}
        data-testid="motivo"
      />
      <NumberInput
        label="Quantità non ricevuta"
        value={quantita}
        onChange={setQuantita}
        min={0}
        max={Number(row.quantita)}
        decimalScale={3}
        data-testid="quantita-differenza"
      />
      <TextInput label="Nota" value={nota} onChange={(e) => setNota(e.currentTarget.value)} maxLength={500} />
      <Group grow>
        <Button variant="default" onClick={mark ? () => onSave(null) : onCancel}>
          {mark ? "Togli" : "Annulla"}
        </Button>
        <Button disabled={!valid} onClick={() => onSave({ quantita: quantita as number, motivo, nota })} data-testid="salva-differenza">
          Salva
        </Button>
      </Group>
    </Stack>
  );
}

/**
 * A photo of the row's difference, from the device's camera where it has one (`capture`: the rear camera
 * opens directly; elsewhere the file picker). The input is never focusable and the scan field takes the focus
 * back as soon as the photo is chosen (or the picker closed): a scan right after goes where scans go.
 */
function PhotoButton({
  indice,
  photo,
  onPhoto,
  onDone,
}: {
  indice: number;
  photo: Blob | undefined;
  onPhoto: (indice: number, file: Blob | null) => void;
  onDone: () => void;
}) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <Group gap="xs" mt={4}>
      <input
        ref={input}
        type="file"
        accept="image/*"
        capture="environment"
        tabIndex={-1}
        hidden
        data-testid="foto-differenza-file"
        onChange={(e) => {
          const file = e.currentTarget.files?.[0];
          if (file) onPhoto(indice, file);
          e.currentTarget.value = "";
          onDone();
        }}
      />
      <Button
        variant="light"
        size="compact-md"
        onClick={() => {
          input.current?.click();
          onDone();
        }}
        data-testid="foto-differenza"
      >
        {photo ? "Cambia foto" : "Foto della differenza"}
      </Button>
      {photo && (
        <>
          <Badge color="teal" data-testid="foto-allegata">
            Foto allegata
          </Badge>
          <Button variant="subtle" size="compact-sm" color="red" onClick={() => onPhoto(indice, null)}>
            Togli foto
          </Button>
        </>
      )}
    </Group>
  );
}

/**
 * The pallet a scanned SSCC announced: its rows (article, quantity, lot, what the order row still expects), a
 * difference per row, and Ricevi collo (Enter in the scan field does the same).
 */
export function PalletCard({
  collo,
  marks,
  onMark,
  photos,
  onPhoto,
  onFocusScan,
  onReceive,
  onClose,
  saving,
  error,
}: {
  collo: PalletOutput;
  marks: Record<number, PalletMark>;
  onMark: (indice: number, m: PalletMark | null) => void;
  /** A photo per marked row, uploaded once the receipt created the difference. */
  photos: Record<number, Blob>;
  onPhoto: (indice: number, file: Blob | null) => void;
  onFocusScan: () => void;
  onReceive: () => void;
  onClose: () => void;
  saving: boolean;
  error: string | null;
}) {
  const [editing, setEditing] = useState<number | null>(null);
  return (
    <Card withBorder padding="sm" data-testid="collo">
      <Stack gap="sm">
        <div>
          <Text fw={700} style={{ overflowWrap: "anywhere" }}>
            Collo {collo.sscc}
          </Text>
          <Group gap="xs">
            <Text size="sm" c="dimmed">
              Avviso {collo.avviso.numero} · {count(collo.righe.length, "riga", "righe")}
            </Text>
            <Badge color={collo.stato === "ricevuto" ? "gray" : "blue"}>{collo.stato === "ricevuto" ? "ricevuto" : "atteso"}</Badge>
          </Group>
        </div>
        {collo.righe.map((r) => {
          const m = marks[r.indice];
          const over = Number(r.quantita) > Number(r.residua);
          return (
            <Card key={r.indice} withBorder padding="xs" data-testid={`riga-collo-${r.indice}`}>
              <Group justify="space-between" wrap="nowrap" align="flex-start">
                <div style={{ minWidth: 0 }}>
                  <Text fw={600} style={{ overflowWrap: "anywhere" }}>
                    {r.articolo.codice}
                  </Text>
                  <Text size="sm" c="dimmed">
                    Ordine {r.ordine.numero}
                    {r.lotto ? ` · lotto ${r.lotto}` : ""}
                    {r.scadenza ? ` · scad. ${day(r.scadenza)}` : ""}
                  </Text>
                  {over && collo.stato !== "ricevuto" && (
                    <Text size="sm" c="orange.9">
                      L'ordine ne attende {qty(r.residua)}: il resto sarà annotato come eccedente
                    </Text>
                  )}
                </div>
                <Text fw={700} size="xl" data-testid="quantita-collo">
                  {qty(r.quantita)}
                </Text>
              </Group>
              {m && editing !== r.indice && (
                <Badge color="red" mt={4} data-testid="differenza-segnata">
                  {m.motivo} {m.quantita}
                </Badge>
              )}
              {m && editing !== r.indice && collo.stato !== "ricevuto" && (
                <PhotoButton indice={r.indice} photo={photos[r.indice]} onPhoto={onPhoto} onDone={onFocusScan} />
              )}
              {editing === r.indice ? (
                <MarkEditor
                  row={r}
                  mark={m}
                  onSave={(x) => {
                    onMark(r.indice, x);
                    setEditing(null);
                  }}
                  onCancel={() => setEditing(null)}
                />
              ) : (
                collo.stato !== "ricevuto" && (
                  <Button variant="subtle" size="compact-md" mt={4} onClick={() => setEditing(r.indice)} data-testid="segna-differenza">
                    {m ? "Cambia differenza" : "Segna differenza"}
                  </Button>
                )
              )}
            </Card>
          );
        })}
        {error && (
          <Text c="red.8" size="sm">
            {error}
          </Text>
        )}
        <Button size="xl" fullWidth onClick={onReceive} loading={saving} disabled={collo.stato === "ricevuto"} data-testid="ricevi-collo">
          Ricevi collo (Invio)
        </Button>
        <Button variant="default" onClick={onClose}>
          Chiudi senza ricevere
        </Button>
      </Stack>
    </Card>
  );
}
