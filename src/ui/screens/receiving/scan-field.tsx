"use client";
import { TextInput } from "@mantine/core";
import { memo } from "react";
import { isEditable } from "./use-receiving";

/**
 * The field a keyboard-wedge scanner types into: a code, then Enter. Uncontrolled: the thirteen keystrokes
 * of an EAN stay in the input instead of rendering the screen thirteen times; Enter reads the text and
 * empties the field (a blank one is left as it is: Enter there registers the row shown).
 */
export const ScanField = memo(function ScanField({
  inputRef,
  busy,
  lastCode,
  onEnter,
}: {
  inputRef: React.RefObject<HTMLInputElement | null>;
  /** A code is being looked up. */
  busy: boolean;
  lastCode: string | null;
  /** The text read, trimmed ("" for an empty field). */
  onEnter: (code: string) => void;
}) {
  return (
    <TextInput
      ref={inputRef}
      className="scan-input"
      label="Codice letto (EAN, etichetta R…, GS1)"
      placeholder="Leggere il codice"
      onKeyDown={(e) => {
        if (e.key !== "Enter") return;
        e.preventDefault();
        const code = e.currentTarget.value.trim();
        if (code) e.currentTarget.value = "";
        onEnter(code);
      }}
      onBlur={() =>
        setTimeout(() => {
          if (!isEditable(document.activeElement) && !document.querySelector("[role=dialog]")) inputRef.current?.focus();
        }, 150)
      }
      autoComplete="off"
      autoCapitalize="characters"
      autoCorrect="off"
      spellCheck={false}
      enterKeyHint="go"
      data-testid="campo-scansione"
      aria-busy={busy}
      description={lastCode ? `Ultimo codice letto: ${lastCode}` : undefined}
      inputWrapperOrder={["label", "input", "description"]}
    />
  );
});
