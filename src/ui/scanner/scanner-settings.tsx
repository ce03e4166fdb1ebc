"use client";
import { ActionIcon, Button, Group, NumberInput, SegmentedControl, Stack, Text, TextInput } from "@mantine/core";
import { useState } from "react";
import { DEFAULT_SCANNER, loadScannerSettings, saveScannerSettings, type ScannerSettings } from "./wedge";
import { Modal } from "../lazy-modal";

/**
 * The handheld's scanner, as its device is set: how fast its keys come, the prefix or suffix it sends, and
 * how it sends FNC1 (the separator after a GS1 lot). Kept in the browser (the device's, not a user's). The
 * defaults suit a USB or Bluetooth keyboard-wedge scanner sending Enter and Ctrl+] for FNC1; a device too
 * slow to be told from a person by speed is set to send a prefix.
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
          <TextInput
            label="Prefisso inviato dal lettore (un carattere, vuoto se nessuno)"
            maxLength={1}
            value={s.prefix}
            onChange={(e) => setS({ ...s, prefix: e.currentTarget.value })}
          />
          <TextInput
            label="Separatore GS1 (FNC1) inviato dal lettore"
            description="Ctrl+] e il carattere GS sono sempre letti come separatore. Se il lettore ne invia un altro, scriverlo qui: un carattere (es. #) o il nome di un tasto (es. F8)."
            placeholder="Ctrl+] o GS"
            maxLength={12}
            value={s.separator}
            onChange={(e) => setS({ ...s, separator: e.currentTarget.value.trim() })}
            data-testid="separatore-gs1"
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
