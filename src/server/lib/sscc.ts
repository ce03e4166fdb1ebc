import { readSscc } from "../../lib/sscc";
import { DomainError } from "./errors";

/**
 * The SSCC a route names (a pallet's receipt, cancellation, putaway, label), or the one refusal every such
 * route gives a code that is no SSCC: 422 `sscc_non_valido`. Only a well-formed SSCC that no notice
 * announces is `collo_non_trovato`, so a client can tell a typing error from a pallet it does not know.
 */
export function ssccOrRefuse(raw: string): string {
  const sscc = readSscc(raw);
  if (sscc === null)
    throw new DomainError("sscc_non_valido", `'${raw.slice(0, 40)}' non è un SSCC: 18 cifre, l'ultima di controllo GS1.`, {
      campo: "sscc",
    });
  return sscc;
}
