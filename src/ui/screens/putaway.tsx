"use client";
import { Group, Select, Stack, Title } from "@mantine/core";
import { ScannerSettingsButton } from "../scanner/scanner-settings";
import { CameraScanner } from "./camera-scanner";
import { PutawayTask, QueuedPutaways, WaitingGoods } from "./putaway/putaway-parts";
import { usePutaway } from "./putaway/use-putaway";
import { PalletTask } from "./putaway/pallet-task";
import { FeedbackPanel } from "./receiving/feedback-panel";
import { LabelAtReceipt } from "./receiving/label-print";
import { ScanField } from "./receiving/scan-field";

/** Putaway on a handheld: the goods' code, the destination's label, Enter. State and calls in usePutaway. */
export function PutawayScreen() {
  const p = usePutaway();
  return (
    <Stack gap="md" maw={900} data-fase={p.phase}>
      <Group justify="space-between" align="baseline">
        <Title order={2}>Stoccaggio</Title>
        <Group gap={4}>
          <ScannerSettingsButton />
          <CameraScanner onCode={p.enqueue} />
        </Group>
      </Group>
      <Select
        label="Magazzino"
        placeholder={p.warehouseOptions.length === 0 ? "Nessun magazzino con ubicazioni" : "Scegliere il magazzino"}
        data={p.warehouseOptions}
        value={p.magazzino}
        onChange={p.setMagazzino}
        allowDeselect={false}
        data-testid="campo-magazzino"
      />
      <ScanField
        inputRef={p.scanRef}
        busy={false}
        lastCode={null}
        onEnter={p.onScanEnter}
        startsHere
        label={p.row ? "Leggere l'etichetta dell'ubicazione di destinazione" : "Leggere la merce (EAN, GS1, etichetta R, SSCC del collo)"}
      />
      {p.feedback && <FeedbackPanel feedback={p.feedback} />}
      {p.pallet && p.choice && (
        <PalletTask pallet={p.pallet} destination={p.choice.a} saving={p.saving} onConfirm={() => void p.confirm()} onCancel={p.cancel} />
      )}
      {p.row && p.choice && !p.choice.sscc && (
        <PutawayTask
          row={p.row}
          left={p.left}
          destination={p.choice.a}
          quantita={p.choice.quantita}
          saving={p.saving}
          quantityRef={p.quantityRef}
          onQuantity={p.setQuantity}
          onConfirm={() => void p.confirm()}
          onCancel={p.cancel}
        />
      )}
      <LabelAtReceipt l={p.labelPanel} />
      <QueuedPutaways
        items={p.queue.items}
        online={p.queue.online}
        onDiscard={(q) => void p.queue.remove(q)}
        onSendAgain={(q) => void p.queue.sendAgain(q)}
      />
      {p.magazzino && (
        <WaitingGoods rows={p.rows} queued={p.queued} chosen={p.row?.id ?? null} readAt={p.copy?.letto_il ?? null} onChoose={p.choose} />
      )}
    </Stack>
  );
}
