"use client";
import { Badge, Button, Card, Group, SegmentedControl, Stack, Text } from "@mantine/core";
import { useRef } from "react";
import type { PalletOutput } from "../../../server/modules/arrivals/receiving.schemas";
import { count, day, qty } from "../../format";
import { TypedInput } from "../../typed-input";
import { describeReceipt, type PalletDraft, type PalletMark } from "./pallet-draft";
import type { usePallet } from "./use-pallet";

const REASONS = [
  { value: "mancante", label: "Manca" },
  { value: "danneggiato", label: "Danneggiato" },
  { value: "errato", label: "Errato" },
] as const;

type Row = PalletOutput["righe"][number];

/** Enter in a field of the form saves it, as Salva does (the form's own Enter, never the pallet's). */
const saveOnEnter = (onSave: () => void) => (e: React.KeyboardEvent) => {
  if (e.key !== "Enter") return;
  e.preventDefault();
  e.stopPropagation();
  onSave();
};

/**
 * One row's difference, being written (the draft lives in usePallet, so the receipt can take it): quantity
 * (default the whole row), reason, note; Enter in the quantity or the note saves it. The quantity and the note
 * are dock fields (TypedInput): a key renders nothing, the draft hears the text at a pause, at Enter, when the
 * field is left (Salva, Ricevi collo) or before a scan. The quantity is the text typed (a decimal comma too),
 * read as a number when the draft is taken (pallet-draft.ts): never clamped, so a slip is said.
 */
function MarkEditor({
  row,
  draft,
  marked,
  quantityRef,
  onChange,
  onSave,
  onCancel,
  onRemove,
}: {
  row: Row;
  draft: PalletDraft;
  marked: boolean;
  quantityRef: React.RefObject<HTMLInputElement | null>;
  onChange: (patch: Partial<PalletDraft>) => void;
  onSave: () => void;
  onCancel: () => void;
  onRemove: () => void;
}) {
  return (
    <Stack gap="xs" data-testid={`differenza-${row.indice}`}>
      <SegmentedControl
        fullWidth
        // Three reasons side by side within a row's card at 360 px: narrow padding keeps "Errato" whole.
        styles={{ label: { paddingInline: 6 } }}
        value={draft.motivo}
        onChange={(v) => onChange({ motivo: v as PalletMark["motivo"] })}
        data={[...REASONS]}
        data-testid="motivo"
      />
      <TypedInput
        ref={quantityRef}
        label="Quantità non ricevuta"
        value={String(draft.quantita)}
        onChange={(v) => onChange({ quantita: v })}
        onKeyDown={saveOnEnter(onSave)}
        inputMode="decimal"
        autoComplete="off"
        enterKeyHint="done"
        data-testid="quantita-differenza"
      />
      <TypedInput
        label="Nota"
        value={draft.nota}
        onChange={(v) => onChange({ nota: v })}
        onKeyDown={saveOnEnter(onSave)}
        maxLength={500}
        autoComplete="off"
        enterKeyHint="done"
        description="Invio salva la differenza"
        inputWrapperOrder={["label", "input", "description"]}
        data-testid="nota-differenza"
      />
      <Group grow>
        <Button variant="default" onClick={marked ? onRemove : onCancel}>
          {marked ? "Togli" : "Annulla"}
        </Button>
        <Button onClick={onSave} data-testid="salva-differenza">
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
 * difference per row, and Ricevi collo (Enter in the scan field does the same). Received (by whom, with which
 * DDT, when), it offers only to close; marks that a refused receipt could not record stay, said so.
 */
export function PalletCard({
  p,
  onFocusScan,
  onReceive,
}: {
  /** The pallet view (usePallet): the pallet, its marks and form, photos, the codes waiting for it. */
  p: Pick<
    ReturnType<typeof usePallet>,
    | "marks"
    | "draft"
    | "draftRef"
    | "editMark"
    | "changeDraft"
    | "saveDraft"
    | "cancelDraft"
    | "removeMark"
    | "unrecorded"
    | "held"
    | "photos"
    | "attachPhoto"
    | "saving"
    | "close"
  > & { collo: PalletOutput };
  onFocusScan: () => void;
  onReceive: () => void;
}) {
  const { collo, marks, draft, photos, held } = p;
  const received = collo.stato === "ricevuto";
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
            <Badge color={received ? "gray" : "blue"} data-testid="stato-collo">
              {received ? "ricevuto" : "atteso"}
            </Badge>
          </Group>
          {collo.ricevuto && (
            <Text size="sm" fw={600} data-testid="ricevuto-da">
              Ricevuto {describeReceipt(collo.ricevuto)}
            </Text>
          )}
        </div>
        {p.unrecorded && (
          <Text c="red.9" fw={700} data-testid="differenze-non-registrate">
            Le differenze segnate qui non sono registrate: accordarsi con {collo.ricevuto?.da ?? "chi ha ricevuto il collo"}.
          </Text>
        )}
        {collo.righe.map((r) => {
          const m = marks[r.indice];
          const editing = draft?.indice === r.indice;
          const over = !received && Number(r.quantita) > Number(r.residua);
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
              {m && !editing && (
                <Badge color={p.unrecorded ? "gray" : "red"} mt={4} data-testid="differenza-segnata">
                  {m.motivo} {m.quantita}
                  {p.unrecorded ? " · non registrata" : ""}
                </Badge>
              )}
              {m && !editing && !received && (
                <PhotoButton indice={r.indice} photo={photos[r.indice]} onPhoto={p.attachPhoto} onDone={onFocusScan} />
              )}
              {editing && draft ? (
                <MarkEditor
                  row={r}
                  draft={draft}
                  marked={m !== undefined}
                  quantityRef={p.draftRef}
                  onChange={p.changeDraft}
                  onSave={p.saveDraft}
                  onCancel={p.cancelDraft}
                  onRemove={() => p.removeMark(r.indice)}
                />
              ) : (
                !received && (
                  <Button variant="subtle" size="compact-md" mt={4} onClick={() => p.editMark(r.indice)} data-testid="segna-differenza">
                    {m ? "Cambia differenza" : "Segna differenza"}
                  </Button>
                )
              )}
            </Card>
          );
        })}
        {held.length > 0 && (
          <Text size="sm" c="orange.9" fw={600} data-testid="codici-dopo-collo" style={{ overflowWrap: "anywhere" }}>
            Dopo il collo {held.length === 1 ? "sarà letto il codice" : "saranno letti i codici"} {held.join(", ")}.
          </Text>
        )}
        {received ? (
          <Button size="xl" fullWidth variant="default" onClick={p.close} data-testid="chiudi-collo">
            Chiudi (Invio)
          </Button>
        ) : (
          <>
            {draft && (
              <Text size="sm" c="dimmed" data-testid="ricevi-con-differenza">
                Ricevi collo registra anche la differenza aperta sulla riga {draft.indice + 1}.
              </Text>
            )}
            <Button size="xl" fullWidth onClick={onReceive} loading={p.saving} data-testid="ricevi-collo">
              Ricevi collo (Invio)
            </Button>
            <Button variant="default" onClick={p.close}>
              Chiudi senza ricevere
            </Button>
          </>
        )}
      </Stack>
    </Card>
  );
}
