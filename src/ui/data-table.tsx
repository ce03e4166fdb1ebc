"use client";
import { type MantineBreakpoint, Table, type TableProps } from "@mantine/core";
import { type ReactNode, useId } from "react";

/** A column's heading: its text (none for a column of buttons), numbers aligned right, a fixed width. */
export interface Column {
  label?: ReactNode;
  /** Right-aligned figures (the `num` class of globals.css). */
  num?: boolean;
  w?: number;
  visibleFrom?: MantineBreakpoint;
  /** When the label is not a unique string. */
  key?: string;
  /** Stacked on a handheld: the cell takes the whole width of its card (a description, the actions). */
  wide?: boolean;
  /** Stacked on a handheld: the card's title, on top and across, without a heading (default: the first column). */
  main?: boolean;
  /** Stacked on a handheld: the heading written over the cell, when `label` is not a string. */
  cardLabel?: string;
}

/**
 * The tables of every screen: a heading row from `columns`, and the body rows the screen renders as
 * `Table.Tr` children. On a handheld (below 48em) a table is `stacked` by default: each row becomes a
 * card, its `main` cell (the first, unless one is named) on top, the others in two columns under their
 * headings, the `wide` ones (actions) across, so nothing hides off-screen. Unstacked, it scrolls sideways
 * below `minWidth`.
 */
export function DataTable({
  minWidth,
  columns,
  children,
  stacked = true,
  cardColumns = 2,
  className,
  style,
  ...table
}: {
  minWidth: number;
  columns: Column[];
  children: ReactNode;
  stacked?: boolean;
  /** Stacked on a handheld: the cells side by side in a card. */
  cardColumns?: 2 | 3;
} & TableProps) {
  const scope = `dt-${useId().replace(/[^a-zA-Z0-9_-]/g, "")}`;
  // The cards' headings and wide cells, by column position, for this table only.
  const main = Math.max(
    0,
    columns.findIndex((c) => c.main),
  );
  const rules = stacked
    ? columns
        .map((c, i) => {
          const cell = `.${scope} > tbody > tr > td:nth-child(${i + 1})`;
          const label = c.cardLabel ?? (typeof c.label === "string" ? c.label : "");
          if (i === main) return `${cell}{grid-column:1/-1;order:-1}`;
          return [label ? `${cell}::before{content:${JSON.stringify(label)}}` : "", c.wide ? `${cell}{grid-column:1/-1}` : ""].join("");
        })
        .join("")
    : "";
  return (
    <Table.ScrollContainer minWidth={minWidth} className={stacked ? "stacked-scroll" : undefined}>
      {rules && <style>{`@media (max-width: 47.99em){${rules}}`}</style>}
      <Table
        {...table}
        style={{ ...(typeof style === "object" ? style : {}), ["--card-cols" as string]: cardColumns }}
        className={[stacked ? `stacked-table ${scope}` : "", className ?? ""].join(" ").trim() || undefined}
      >
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
