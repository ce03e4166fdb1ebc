"use client";
import { Group, Select, SimpleGrid, Stack, TextInput, Title } from "@mantine/core";
import { CameraScanner } from "./camera-scanner";
import { ExpectedRowCard } from "./receiving/expected-row-card";
import { FeedbackPanel, ReadingPanel } from "./receiving/feedback-panel";
import { PendingChoiceModal } from "./receiving/pending-choice";
import { CancelArrivalModal, SessionArrivals } from "./receiving/session-arrivals";
import { isEditable, useReceiving } from "./receiving/use-receiving";

/** The receiving bay on a handheld: scan a code, check the quantity, Enter. State and calls in useReceiving. */
export function ReceivingScreen() {
  const r = useReceiving();
  return (
    <Stack gap="md" maw={900}>
      <Group justify="space-between" align="baseline">
        <Title order={2}>Ricevimento</Title>
        <CameraScanner onCode={r.enqueue} />
      </Group>

      <SimpleGrid cols={2} spacing="sm">
        <TextInput
          ref={r.ddtRef}
          label="DDT fornitore"
          placeholder="es. DDT-1187"
          value={r.ddt}
          onChange={(e) => r.setDdt(e.currentTarget.value)}
          onKeyDown={(e) => e.key === "Enter" && (e.preventDefault(), r.focusScan())}
          data-testid="campo-ddt"
        />
        <Select
          ref={r.warehouseRef}
          label="Magazzino"
          placeholder="Scegliere"
          data={r.warehouseOptions}
          value={r.magazzino}
          onChange={(v) => {
            r.setMagazzino(v);
            r.focusScan();
          }}
          allowDeselect={false}
          // Half of a 360 px screen: a narrow chevron leaves the warehouse code readable.
          rightSectionWidth={26}
          styles={{ input: { paddingRight: 26, fontSize: "0.95rem" } }}
          data-testid="campo-magazzino"
        />
      </SimpleGrid>

      <TextInput
        ref={r.scanRef}
        className="scan-input"
        label="Codice letto (EAN, etichetta R…, GS1)"
        placeholder="Leggere il codice"
        value={r.scan}
        onChange={(e) => r.setScan(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key !== "Enter") return;
          e.preventDefault();
          r.onScanEnter();
        }}
        onBlur={() =>
          setTimeout(() => {
            if (!isEditable(document.activeElement) && !document.querySelector("[role=dialog]")) r.scanRef.current?.focus();
          }, 150)
        }
        autoComplete="off"
        autoCapitalize="characters"
        autoCorrect="off"
        spellCheck={false}
        enterKeyHint="go"
        data-testid="campo-scansione"
        aria-busy={r.searchBusy}
        description={r.lastCode ? `Ultimo codice letto: ${r.lastCode}` : undefined}
        inputWrapperOrder={["label", "input", "description"]}
      />

      {r.reading ? (
        <ReadingPanel code={r.reading.code} repeats={r.reading.repeats} />
      ) : (
        r.feedback && <FeedbackPanel feedback={r.feedback} />
      )}

      {r.current && (
        <ExpectedRowCard
          current={r.current}
          fields={r.fields}
          magazzino={r.magazzino}
          warehouseCode={(id) => r.magazzini.find((m) => m.id === id)?.codice}
          registering={r.registerBusy}
          held={r.held}
          refs={{ quantity: r.quantityRef, lot: r.lotRef, expiry: r.expiryRef }}
          onRegister={() => void r.register()}
          onLotEnter={r.onLotEnter}
          onLeave={r.leaveRow}
        />
      )}

      <PendingChoiceModal choice={r.choice} onComplete={r.completePending} onDiscard={r.discardPending} />

      <SessionArrivals arrivals={r.arrivals} onCancel={r.setToCancel} />

      <CancelArrivalModal arrival={r.toCancel} busy={r.cancelBusy} onConfirm={() => void r.confirmCancel()} onClose={r.closeCancel} />
    </Stack>
  );
}
