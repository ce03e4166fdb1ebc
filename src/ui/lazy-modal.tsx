"use client";
import { Modal as MantineModal, type ModalProps } from "@mantine/core";
import { useEffect, useState } from "react";

/**
 * Mantine's Modal, in the tree only while it is open or fading out. A mounted Modal listens to every keydown
 * on the window, closed or not (its Escape, `useModal`): a script call per keystroke in every dock field of
 * the screen, four on /ricevimento (docs/performance.md, "What a dock field does for a keystroke"). Opened, it
 * is mounted closed and opened on the next render, so it fades in as Mantine's does; closed, it leaves the
 * tree once its exit transition has ended (at once with reduced motion), so it fades out as before.
 */
export function Modal({ opened, onExitTransitionEnd, ...props }: ModalProps) {
  const [mounted, setMounted] = useState(opened);
  const [shown, setShown] = useState(opened);
  if (opened && !mounted) setMounted(true);
  useEffect(() => {
    if (!mounted) return;
    if (opened) setShown(true);
    // Closed before it was shown: no exit transition will come to unmount it.
    else if (!shown) setMounted(false);
  }, [mounted, opened, shown]);
  if (!mounted) return null;
  return (
    <MantineModal
      {...props}
      opened={opened && shown}
      onExitTransitionEnd={() => {
        setMounted(false);
        setShown(false);
        onExitTransitionEnd?.();
      }}
    />
  );
}
