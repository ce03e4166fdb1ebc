"use client";
import { Select, SimpleGrid, TextInput } from "@mantine/core";
import { memo } from "react";
import { useTypedBeforeStart } from "../../hooks";

/**
 * The delivery note and the receiving warehouse, kept for the tab. Memoised: they change a few times a
 * shift, not at every scan, and a scan renders the screen that holds them.
 */
export const DeliveryFields = memo(function DeliveryFields({
  ddt,
  onDdt,
  magazzino,
  onMagazzino,
  warehouseOptions,
  ddtRef,
  warehouseRef,
  onDone,
}: {
  ddt: string;
  onDdt: (ddt: string) => void;
  magazzino: string | null;
  onMagazzino: (magazzino: string | null) => void;
  warehouseOptions: { value: string; label: string }[];
  ddtRef: React.RefObject<HTMLInputElement | null>;
  warehouseRef: React.RefObject<HTMLInputElement | null>;
  /** Back to the scan field. */
  onDone: () => void;
}) {
  useTypedBeforeStart(ddtRef, onDdt);
  return (
    <SimpleGrid cols={2} spacing="sm">
      <TextInput
        ref={ddtRef}
        label="DDT fornitore"
        placeholder="es. DDT-1187"
        value={ddt}
        onChange={(e) => onDdt(e.currentTarget.value)}
        onKeyDown={(e) => e.key === "Enter" && (e.preventDefault(), onDone())}
        data-testid="campo-ddt"
      />
      <Select
        ref={warehouseRef}
        label="Magazzino"
        placeholder="Scegliere"
        data={warehouseOptions}
        value={magazzino}
        onChange={(v) => {
          onMagazzino(v);
          onDone();
        }}
        allowDeselect={false}
        // Half of a 360 px screen: a narrow chevron leaves the warehouse code (the label's start) readable; the
        // list opens wider than the field, so each warehouse shows its code and name.
        rightSectionWidth={26}
        styles={{ input: { paddingRight: 26, fontSize: "0.95rem", textOverflow: "ellipsis" } }}
        comboboxProps={{ width: 300, position: "bottom-end" }}
        data-testid="campo-magazzino"
      />
    </SimpleGrid>
  );
});
