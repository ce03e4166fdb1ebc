"use client";
import { DateInput, type DateInputProps } from "@mantine/dates";
import "dayjs/locale/it";
import { parseItalianDate } from "./dates";

/**
 * Every date field of the screens: `gg/mm/aaaa` whatever the browser's language (Mantine's DateInput
 * with the Italian locale, weeks from Monday), typed as an operator types it (30/11/2027, 301127, …) or
 * picked from the calendar. The value stays the contract's `AAAA-MM-GG`; "" is no date.
 */
export function DateField({
  value,
  onChange,
  ref,
  ...props
}: Omit<DateInputProps, "value" | "onChange" | "defaultValue"> & {
  value: string;
  onChange: (iso: string) => void;
  ref?: React.Ref<HTMLInputElement>;
}) {
  return (
    <DateInput
      ref={ref}
      locale="it"
      valueFormat="DD/MM/YYYY"
      placeholder="gg/mm/aaaa"
      firstDayOfWeek={1}
      clearable
      inputMode="numeric"
      dateParser={(text) => parseItalianDate(text)}
      value={value || null}
      onChange={(v) => onChange(v ?? "")}
      {...props}
    />
  );
}
