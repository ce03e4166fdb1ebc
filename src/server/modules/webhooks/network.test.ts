import { describe, expect, test } from "vitest";
import { DomainError } from "../../lib/errors";
import { assertDeliverable, assertPublicUrl, isPrivateAddress, parseEndpointUrl } from "./network";

describe("webhook destinations (docs/api.md section 10)", () => {
  test.each([
    ["127.0.0.1", true],
    ["127.255.0.9", true],
    ["10.1.2.3", true],
    ["172.16.0.1", true],
    ["172.31.255.255", true],
    ["192.168.1.10", true],
    ["169.254.169.254", true],
    ["100.64.0.1", true],
    ["0.0.0.0", true],
    ["224.0.0.1", true],
    ["::1", true],
    ["::", true],
    ["fe80::1", true],
    ["fd12:3456::1", true],
    ["::ffff:127.0.0.1", true],
    ["::ffff:10.0.0.1", true],
    ["8.8.8.8", false],
    ["172.32.0.1", false],
    ["93.184.216.34", false],
    ["2001:4860:4860::8888", false],
    ["::ffff:8.8.8.8", false],
    ["not-an-address", true],
  ])("%s private: %s", (address, expected) => {
    expect(isPrivateAddress(address)).toBe(expected);
  });

  test.each([
    ["ftp://erp.example.com/hook", "http:// o https://"],
    ["javascript:alert(1)", "http:// o https://"],
    ["non un indirizzo", "non è un indirizzo valido"],
    ["https://utente:segreto@erp.example.com/hook", "nome utente e password"],
  ])("%s is refused", (url, message) => {
    expect(() => parseEndpointUrl(url)).toThrow(message);
  });

  test("a loopback or private address is refused at creation unless allowed; names are resolved first", async () => {
    for (const url of ["http://127.0.0.1:9/x", "http://[::1]:9/x", "http://localhost:9/x", "http://10.0.0.5/x"]) {
      const refused = await assertPublicUrl(new URL(url), false).catch((e: unknown) => e);
      expect(refused, url).toBeInstanceOf(DomainError);
      expect((refused as DomainError).message).toMatch(/rete privata/);
      await expect(assertPublicUrl(new URL(url), true)).resolves.toBeUndefined();
    }
    await expect(assertPublicUrl(new URL("http://nome-che-non-esiste.invalid/x"), true)).rejects.toThrow("non si risolve");
  });

  test("at delivery, an IP literal in a private range is refused before any connection", () => {
    expect(() => assertDeliverable(new URL("http://127.0.0.1:9/x"), false)).toThrow("rete privata");
    expect(() => assertDeliverable(new URL("http://[fe80::1]:9/x"), false)).toThrow("rete privata");
    expect(() => assertDeliverable(new URL("http://127.0.0.1:9/x"), true)).not.toThrow();
  });
});
