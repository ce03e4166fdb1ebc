"use client";
import { TextInput, type TextInputProps } from "@mantine/core";
import { forwardRef, memo, useCallback, useEffect, useRef, useState } from "react";

/** How long typing must pause before the screen hears the text, ms. */
const PAUSE_MS = 300;

/** The text of every field typed into and not yet handed to its screen. */
const pending = new Set<() => void>();

/** Each dock field's input, and what it does when its text changes. */
const typedInto = new WeakMap<EventTarget, () => void>();

/**
 * The events a keystroke fires in a text field that React handles at the document. React's own work for
 * each (finding the field's listeners up the whole tree, and after every `input` writing the field's `name`
 * and `type` back, which makes the browser recompute its style) is what a dock field costs per key; the
 * field needs none of it, so they stop at the window, after the scanner's listener there (useScanner,
 * which reads keydown), and the field hears its text with a listener of its own. Keydown is stopped only
 * for a character key: Enter, Tab, Escape and the arrows reach React and the field's onKeyDown as before.
 * A key that moves the caret past the field's width scrolls its text: `scroll` and `scrollend` come at the
 * field then, once per key, and React's root listener walked the whole tree for each (no dock field
 * listens to them); stopped too. Not `beforeinput` nor `selectionchange`, which a key fires too: React
 * listens to neither when its root is the document (Next's), nor does anything else on a dock screen
 * (CDP DOMDebugger.getEventListeners), so a listener of ours would be a script call per key for nothing.
 */
const TYPING_EVENTS = ["keypress", "keyup", "textInput", "input", "scroll", "scrollend"] as const;

/**
 * Stops a typing event of a dock field at the window (TYPING_EVENTS). Keydown is stopped by the scanner's own
 * listener on the window (useScanner calls this after reading the key), one script call per key instead of
 * two: every screen with dock fields reads a scanner. On a screen without one, a field's keydown reaches
 * React as any input's does.
 */
export function keepFromReact(e: Event): void {
  if (!typedInto.has(e.target as EventTarget)) return;
  if (e instanceof KeyboardEvent && (e.key.length !== 1 || e.ctrlKey || e.metaKey || e.altKey)) return;
  e.stopPropagation();
  if (e.type === "input") typedInto.get(e.target as EventTarget)?.();
}

let listening = false;

/**
 * Keeps a field's typing events from React (keepFromReact); `typed` hears each change of its text. For a
 * field that needs no onChange (the scan field, read at its Enter), and for TypedInput.
 */
export function typeQuietly(el: HTMLInputElement, typed: () => void = () => {}): () => void {
  if (!listening) {
    listening = true;
    for (const type of TYPING_EVENTS) window.addEventListener(type, keepFromReact, true);
  }
  typedInto.set(el, typed);
  return () => typedInto.delete(el);
}

/**
 * Hands every field's typed text to its screen now: called before a scan is read (useScanner), so that what
 * a scan does (registering the row shown, say) sees what the operator typed a moment before.
 */
export function flushTypedFields(): void {
  for (const hand of [...pending]) hand();
}

type Props = Omit<TextInputProps, "value" | "onChange" | "defaultValue" | "classNames" | "attributes"> & {
  value: string;
  /** Hears the text after a pause in typing, when the field is left, before its Enter, and before a scan. */
  onChange: (value: string) => void;
};

/**
 * A dock field that costs little per keystroke: uncontrolled, its text lives in the input, so a keystroke
 * renders nothing, and its typing events never reach React (keepFromReact). The screen around it (which renders lists, cards and effects at every change of its state)
 * hears the text once typing pauses, when the field is left, at its Enter, or before a scan is read
 * (flushTypedFields); a scanner's keys, a few ms apart, then never wait for a render. A value the screen sets
 * (a count by scan, a lot read) is written into the input at once.
 */
export const TypedInput = memo(
  forwardRef<HTMLInputElement, Props>(function TypedInput({ value, onChange, onKeyDown, onBlur, placeholder, ...rest }, ref) {
    const input = useRef<HTMLInputElement | null>(null);
    // The text the input starts with, kept: a defaultValue that followed `value` would make React write the
    // input's `value` attribute at each hand, the DOM work per change the field exists to avoid.
    const [initial] = useState(value);
    const handed = useRef(value);
    const tell = useRef(onChange);
    tell.current = onChange;
    const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
    /** When the last key came (performance.now()): the pause is counted from it. */
    const lastKey = useRef(0);
    const hand = useRef(() => {
      clearTimeout(timer.current);
      timer.current = undefined;
      pending.delete(hand.current);
      const now = input.current?.value;
      if (now === undefined || now === handed.current) return;
      handed.current = now;
      tell.current(now);
    });
    // One timer per pause, not one per key: a key only notes its time, and the timer, when it fires before the
    // pause is over, waits for the rest of it (a clearTimeout and a setTimeout per key were a keystroke's cost).
    const waited = useRef(() => {
      const rest = lastKey.current + PAUSE_MS - performance.now();
      if (rest > 1) timer.current = setTimeout(waited.current, rest);
      else hand.current();
    });
    // A field's hint (its `placeholder`) is drawn by the box around the input (globals.css `.typed-field[data-hint]`),
    // not by the input: Chromium writes the inline style of an input's own placeholder at every change of its
    // text, a style recalculation per key. The box shows the hint while the input is empty, and hears of it only
    // when the input turns empty or not (`data-filled`). Null: a field without a hint.
    const filled = useRef<boolean | null>(placeholder ? initial !== "" : null);
    const showHint = useRef(() => {
      const el = input.current;
      if (filled.current === null || !el) return;
      const now = el.value !== "";
      if (now === filled.current) return;
      filled.current = now;
      el.parentElement?.toggleAttribute("data-filled", now);
    });
    const typed = useRef(() => {
      lastKey.current = performance.now();
      showHint.current();
      if (timer.current !== undefined) return;
      pending.add(hand.current);
      timer.current = setTimeout(waited.current, PAUSE_MS);
    });
    const setRef = useCallback(
      (el: HTMLInputElement | null) => {
        if (input.current) typedInto.delete(input.current);
        if (el) typeQuietly(el, typed.current);
        input.current = el;
        if (typeof ref === "function") ref(el);
        else if (ref) ref.current = el;
      },
      [ref],
    );
    // A value set by the screen replaces what is shown.
    useEffect(() => {
      if (value === handed.current) return;
      handed.current = value;
      if (input.current && input.current.value !== value) {
        input.current.value = value;
        showHint.current();
      }
    }, [value]);
    // Unmounted (the row registered or left): what was not handed is the row's no more.
    useEffect(
      () => () => {
        clearTimeout(timer.current);
        // Undefined again, or a field mounted anew (React's strict mode in development) would never time a pause.
        timer.current = undefined;
        pending.delete(hand.current);
      },
      [],
    );
    return (
      <TextInput
        ref={setRef}
        {...rest}
        // The box around the input (globals.css .typed-field): a relayout boundary, so a key lays out the field alone.
        classNames={{ wrapper: "typed-field" }}
        // `data-filled` is the box's from here on (showHint): rendered once, from the text the field starts with.
        attributes={placeholder ? { wrapper: { "data-hint": placeholder, "data-filled": initial !== "" || undefined } } : undefined}
        aria-placeholder={placeholder}
        defaultValue={initial}
        onBlur={(e) => {
          hand.current();
          onBlur?.(e);
        }}
        onKeyDown={(e) => {
          if (e.key === "Enter") hand.current();
          onKeyDown?.(e);
        }}
      />
    );
  }),
);
