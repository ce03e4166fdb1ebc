"use client";
import { ActionIcon, Button, Group, Modal, NumberInput, SegmentedControl, Stack, Text, TextInput } from "@mantine/core";
import { useState } from "react";
import { DEFAULT_SCANNER, loadScannerSettings, saveScannerSettings, type ScannerSettings } from "./wedge";

/**
 * The handheld's scanner, as its device is set: how fast its keys come, and the prefix or suffix it sends.
 * Kept in the browser (the device's, not a user's). The defaults suit a USB or Bluetooth keyboard-wedge
 * scanner sending Enter; a device too slow to be told from a person by speed is set to send a prefix.
 */
export function ScannerSettingsButton() {
  const [open, setOpen] = useState(false);
  const [s, setS] = useState<ScannerSettings>(DEFAULT_SCANNER);
  const show = () => {
    setS(loadScannerSettings());
    setOpen(true);
  };
  return (
    <>
      <ActionIcon
        variant="subtle"
        color="gray"
        size="lg"
        onClick={show}
        aria-label="Impostazioni del lettore"
        data-testid="impostazioni-lettore"
      >
        ⚙
      </ActionIcon>
      <Modal opened={open} onClose={() => setOpen(false)} title="Lettore di codici" centered>
        <Stack gap="sm">
          <Text size="sm" c="dimmed">
            Un codice letto arriva come tasti molto ravvicinati seguiti da Invio: così il palmare lo distingue da chi scrive, in qualunque
            campo sia il cursore.
          </Text>
          <NumberInput
            label="Pausa massima tra due tasti (ms)"
            min={5}
            max={200}
            value={s.maxGapMs}
            onChange={(v) => setS({ ...s, maxGapMs: Number(v) || DEFAULT_SCANNER.maxGapMs })}
          />
          <NumberInput
            label="Lunghezza minima di un codice"
            min={2}
            max={20}
            value={s.minLength}
            onChange={(v) => setS({ ...s, minLength: Number(v) || DEFAULT_SCANNER.minLength })}
          />
          <TextInput
            label="Prefisso inviato dal lettore (un carattere, vuoto se nessuno)"
            maxLength={1}
            value={s.prefix}
            onChange={(e) => setS({ ...s, prefix: e.currentTarget.value })}
          />
          <div>
            <Text size="sm" fw={500}>
              Tasto finale
            </Text>
            <SegmentedControl
              value={s.suffix}
              onChange={(v) => setS({ ...s, suffix: v === "Tab" ? "Tab" : "Enter" })}
              data={[
                { value: "Enter", label: "Invio" },
                { value: "Tab", label: "Tab" },
              ]}
            />
          </div>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setS(DEFAULT_SCANNER)}>
              Predefinite
            </Button>
            <Button
              onClick={() => {
                saveScannerSettings(s);
                setOpen(false);
              }}
            >
              Salva
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
