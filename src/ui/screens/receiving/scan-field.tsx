"use client";
import { TextInput } from "@mantine/core";
import { useMounted } from "@mantine/hooks";
import { memo, useEffect } from "react";
import { isEditable } from "../../scanner/use-scanner";
import { typeQuietly } from "../../typed-input";

/**
 * The field for a code typed by hand (a scanner's burst is read by useScanner wherever the focus is, and
 * never reaches it), then Enter. Uncontrolled: keystrokes stay in the input instead of rendering the screen,
 * and never reach React (typeQuietly);
 * Enter reads the text and empties the field (a blank one is left as it is: Enter there registers the row shown).
 */
export const ScanField = memo(function ScanField({
  inputRef,
  busy,
  lastCode,
  onEnter,
  label = "Codice letto (EAN, etichetta R…, GS1)",
  startsHere = false,
}: {
  inputRef: React.RefObject<HTMLInputElement | null>;
  /** A code is being looked up. */
  busy: boolean;
  lastCode: string | null;
  /** The text read, trimmed ("" for an empty field). */
  onEnter: (code: string) => void;
  /** What the screen reads here (the dock: goods; putaway: goods, then a location's label). */
  label?: string;
  /**
   * The caret here as soon as the page is drawn, before its script runs (the server writes `autofocus`): a
   * scan fired then is typed here instead of lost. The screen must read what it finds here as it starts
   * (useCodeTypedBeforeStart).
   */
  startsHere?: boolean;
}) {
  // Drawn by the server, the field takes a scan before the screen runs; the rest of the screen (a warehouse's
  // list) answers only once it runs: `data-avviato` says so, for the tests and for anyone inspecting the page.
  const running = useMounted();
  // Its keys are read at Enter: React need not hear them.
  useEffect(() => {
    const el = inputRef.current;
    return el ? typeQuietly(el) : undefined;
  }, [inputRef]);
  return (
    <TextInput
      ref={inputRef}
      autoFocus={startsHere}
      className="scan-input"
      label={label}
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
      data-scan="codice"
      data-avviato={running ? "" : undefined}
      aria-busy={busy}
      description={lastCode ? `Ultimo codice letto: ${lastCode}` : undefined}
      inputWrapperOrder={["label", "input", "description"]}
    />
  );
});
