"use client";
import { Button, Code, Stack, Text } from "@mantine/core";
import { useRef, useState } from "react";
import { copyText } from "./clipboard";

/**
 * A secret shown once (an API key, a webhook's signing secret): whole at any width (it wraps anywhere),
 * with a Copia that works on plain http too; where the browser copies nothing, the text is left selected
 * and the screen says how to copy it by hand.
 */
export function SecretShown({ value, testId, noun }: { value: string; testId: string; noun: "chiave" | "segreto" }) {
  const [state, setState] = useState<"idle" | "copied" | "manual">("idle");
  const codeRef = useRef<HTMLPreElement>(null);
  const boxRef = useRef<HTMLDivElement>(null);
  async function copy() {
    if (await copyText(value, boxRef.current ?? document.body)) return setState("copied");
    // Nothing reached the clipboard: the text selected, for a long press or Ctrl+C.
    const code = codeRef.current;
    if (code) {
      const range = document.createRange();
      range.selectNodeContents(code);
      const selection = window.getSelection();
      selection?.removeAllRanges();
      selection?.addRange(range);
    }
    setState("manual");
  }
  const copiedLabel = noun === "chiave" ? "Copiata" : "Copiato";
  return (
    <Stack gap="xs" ref={boxRef}>
      <Code
        block
        ref={codeRef}
        data-testid={testId}
        style={{ whiteSpace: "pre-wrap", wordBreak: "break-all", overflowWrap: "anywhere", fontSize: "1rem", userSelect: "all" }}
      >
        {value}
      </Code>
      <Button onClick={() => void copy()} data-testid="copia" color={state === "copied" ? "teal" : undefined}>
        {state === "copied" ? copiedLabel : "Copia"}
      </Button>
      {state === "manual" && (
        <Text size="sm" c="orange.9" data-testid="copia-a-mano">
          Questo browser non permette di copiare da qui (collegamento http).{" "}
          {noun === "chiave" ? "La chiave è selezionata" : "Il segreto è selezionato"}: copiare con Ctrl+C, o tenendo premuto e scegliendo
          Copia.
        </Text>
      )}
    </Stack>
  );
}
