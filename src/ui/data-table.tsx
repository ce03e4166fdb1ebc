"use client";
import { type MantineBreakpoint, Table, type TableProps } from "@mantine/core";
import type { ReactNode } from "react";

/** A column's heading: its text (none for a column of buttons), numbers aligned right, a fixed width. */
export interface Column {
  label?: ReactNode;
  /** Right-aligned figures (the `num` class of globals.css). */
  num?: boolean;
  w?: number;
  visibleFrom?: MantineBreakpoint;
  /** When the label is not a unique string. */
  key?: string;
}

/**
 * The tables of every screen: scrolling sideways below `minWidth` (a 360 px handheld), a heading row
 * from `columns`, and the body rows the screen renders as `Table.Tr` children.
 */
export function DataTable({
  minWidth,
  columns,
  children,
  ...table
}: { minWidth: number; columns: Column[]; children: ReactNode } & TableProps) {
  return (
    <Table.ScrollContainer minWidth={minWidth}>
      <Table {...table}>
        <Table.Thead>
          <Table.Tr>
            {columns.map((c, i) => (
              <Table.Th
                key={c.key ?? (typeof c.label === "string" ? c.label : i)}
                className={c.num ? "num" : undefined}
                w={c.w}
                visibleFrom={c.visibleFrom}
              >
                {c.label}
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>{children}</Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
