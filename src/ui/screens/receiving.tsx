"use client";
import { Group, Stack, Text, Title } from "@mantine/core";
import { memo, useEffect, useRef } from "react";
import { count } from "../format";
import { useCodeTypedBeforeStart } from "../hooks";
import { ScannerSettingsButton } from "../scanner/scanner-settings";
import { CameraScanner } from "./camera-scanner";
import { DeliveryFields } from "./receiving/delivery-fields";
import { ExpectedRowCard } from "./receiving/expected-row-card";
import { PalletCard } from "./receiving/pallet-card";
import { FeedbackPanel, ReadingPanel } from "./receiving/feedback-panel";
import { PendingChoiceModal } from "./receiving/pending-choice";
import { QueuedArrivals } from "./receiving/queued-arrivals";
import { QueuedPallets } from "./receiving/queued-pallets";
import { ScanField } from "./receiving/scan-field";
import { CancelArrivalModal, TodayArrivals } from "./receiving/session-arrivals";
import { usePallet } from "./receiving/use-pallet";
import { useReceiving } from "./receiving/use-receiving";
import { LabelAtReceipt } from "./receiving/label-print";
import { useLabelPrint } from "./receiving/use-label-print";

const Heading = memo(function Heading({ onCode }: { onCode: (code: string) => void }) {
  return (
    <Group justify="space-between" align="baseline">
      <Title order={2}>Ricevimento</Title>
      <Group gap={4}>
        <ScannerSettingsButton />
        <CameraScanner onCode={onCode} />
      </Group>
    </Group>
  );
});

/** The codes read and not yet read: never lost, always in sight. */
const Waiting = memo(function Waiting({ codes }: { codes: string[] }) {
  if (codes.length === 0) return null;
  return (
    <Text size="sm" c="orange.9" fw={600} data-testid="codici-in-coda" style={{ overflowWrap: "anywhere" }}>
      In coda: {count(codes.length, "codice", "codici")} ({codes.join(", ")})
    </Text>
  );
});

/**
 * The receiving bay on a handheld: scan a code, check the quantity, Enter. State and calls in useReceiving.
 * The screen renders at every scan and outcome; its parts are memoised and given stable props, so each
 * renders only when what it shows changed (the operator waits for that render after every Enter).
 */
export function ReceivingScreen() {
  const labels = useLabelPrint();
  // The pallet view is made before the row-by-row one it hands the caret and the codes it held to.
  const rowView = useRef<Pick<ReturnType<typeof useReceiving>, "focusScan" | "enqueue" | "ddtRef"> | null>(null);
  const p = usePallet({
    onReceived: labels.offerPallet,
    focusScan: () => rowView.current?.focusScan(),
    focusDdt: () => requestAnimationFrame(() => rowView.current?.ddtRef.current?.focus()),
    release: (codes) => {
      for (const code of codes) rowView.current?.enqueue(code);
    },
  });
  const r = useReceiving({ intercept: p.intercept });
  rowView.current = r;
  const { setWarehouse } = p;
  useEffect(() => setWarehouse(r.magazzino), [setWarehouse, r.magazzino]);
  const onCode = r.accept;
  // After the warehouse is handed to the pallet view, a code read before the screen ran goes where any code read
  // goes, once the device's copies have been read back: a dead spot as the screen starts reads it from them.
  useCodeTypedBeforeStart(r.scanRef, onCode, r.copySettled && p.copySettled);
  // Enter with nothing typed while a pallet is shown receives the pallet.
  const onScanEnter = (code: string) => (p.collo && !code ? void p.receive(r.ddt) : r.onScanEnter(code));
  return (
    <Stack gap="md" maw={900} data-fase={p.collo ? "pallet" : r.phase}>
      <Heading onCode={onCode} />

      <DeliveryFields
        ddt={r.ddt}
        onDdt={r.setDdt}
        magazzino={r.magazzino}
        onMagazzino={r.setMagazzino}
        warehouseOptions={r.warehouseOptions}
        ddtRef={r.ddtRef}
        warehouseRef={r.warehouseRef}
        onDone={r.focusScan}
      />

      <ScanField inputRef={r.scanRef} busy={r.searchBusy} lastCode={r.lastCode} onEnter={onScanEnter} startsHere />

      {p.message && <FeedbackPanel feedback={{ outcome: p.message.outcome, title: p.message.title, message: p.message.text }} />}
      {p.collo && <PalletCard p={{ ...p, collo: p.collo }} onFocusScan={r.focusScan} onReceive={() => void p.receive(r.ddt)} />}

      {r.reading ? <ReadingPanel code={r.reading} /> : r.feedback && <FeedbackPanel feedback={r.feedback} />}
      <Waiting codes={r.waiting} />

      {r.current && (
        <ExpectedRowCard
          current={r.current}
          values={r.values}
          setField={r.setField}
          magazzino={r.magazzino}
          warehouseName={r.warehouseName}
          held={r.held}
          refs={r.rowRefs}
          onRegister={r.registerRow}
          onLotEnter={r.onLotEnter}
          onLeave={r.leaveRow}
        />
      )}

      <LabelAtReceipt l={labels} />

      <PendingChoiceModal choice={r.choice} onComplete={r.completePending} onDiscard={r.discardPending} />

      <QueuedPallets items={p.queue.items} onDiscard={p.discardQueued} onSendAgain={p.sendQueuedAgain} />

      <QueuedArrivals
        items={r.queue.items}
        online={r.queue.online}
        copy={r.copy}
        onDiscard={r.discardQueued}
        onSendAgain={r.sendQueuedAgain}
      />

      <TodayArrivals
        arrivals={r.today.arrivals}
        failed={r.today.failed}
        view={r.today.view}
        onView={r.today.setView}
        ddt={r.ddt}
        onCancel={r.askCancel}
        onLabel={labels.printer ? labels.print : undefined}
      />

      <CancelArrivalModal
        arrival={r.today.toCancel}
        busy={r.today.cancelBusy}
        waiting={r.waiting}
        onConfirm={r.confirmCancel}
        onClose={r.closeCancel}
      />
    </Stack>
  );
}
