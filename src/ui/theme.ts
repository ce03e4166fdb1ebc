import { createTheme } from "@mantine/core";

/**
 * One look for every screen. Readable at arm's length on a 360 px handheld: a larger base font,
 * inputs and buttons at least 42 px high (touch targets), strong colours for success and refusal.
 */
export const theme = createTheme({
  primaryColor: "indigo",
  defaultRadius: "md",
  fontFamily: "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif",
  fontSizes: { xs: "0.8rem", sm: "0.95rem", md: "1.05rem", lg: "1.2rem", xl: "1.4rem" },
  components: {
    Button: { defaultProps: { size: "md" } },
    TextInput: { defaultProps: { size: "md" } },
    NumberInput: { defaultProps: { size: "md" } },
    PasswordInput: { defaultProps: { size: "md" } },
    Select: { defaultProps: { size: "md" } },
    Textarea: { defaultProps: { size: "md" } },
    FileInput: { defaultProps: { size: "md" } },
    DateInput: { defaultProps: { size: "md" } },
    SegmentedControl: { defaultProps: { size: "md" } },
  },
});
