// The one conversion between HTTP numbers and minor units, tested in-process.
import { describe, expect, test } from "bun:test";
import { toMajor, toMinor, usdValueExceeds } from "../src/money";

describe("toMinor", () => {
  test.each([
    [12.5, "USD", 1250n],
    [0.01, "USD", 1n],
    [0.015, "USDC", 15000n],
    [1e-6, "USDC", 1n],
    [0.00000001, "BTC", 1n],
    [1e9, "USDC", 1_000_000_000_000_000n],
    [123456789.12345678, "BTC", 12345678912345678n],
  ] as const)("%p %s → %p", (value, currency, minor) => {
    expect(toMinor(value, currency)).toBe(minor);
  });

  test.each([
    [0.015, "USD"],
    [0.1 + 0.2, "USD"],
    [1e-7, "USDC"],
    [0, "USD"],
    [-1, "USD"],
    [Number.NaN, "USD"],
    [Number.POSITIVE_INFINITY, "USD"],
    [1e9 + 0.01, "USD"],
  ] as const)("%p %s is refused", (value, currency) => {
    expect(() => toMinor(value, currency)).toThrow();
  });
});

describe("toMajor", () => {
  test("reads exactly as the decimal string", () => {
    expect(toMajor(1250n, "USD")).toBe(12.5);
    expect(toMajor(1n, "BTC")).toBe(0.00000001);
    expect(toMajor(-37654322n, "USDC")).toBe(-37.654322);
    expect(toMajor(0n, "EUR")).toBe(0);
  });

  test("round-trips every minor amount it produces", () => {
    for (const minor of [1n, 7n, 99n, 100n, 12345n, 999999999n, 100000000000000000n]) {
      expect(toMinor(toMajor(minor, "BTC"), "BTC")).toBe(minor);
    }
  });
});

describe("usdValueExceeds", () => {
  test("compares exactly, without floats", () => {
    expect(usdValueExceeds(100_000000n, "USDC", "1", "100")).toBe(false);
    expect(usdValueExceeds(100_000001n, "USDC", "1", "100")).toBe(true);
    expect(usdValueExceeds(9259n, "EUR", "1.08", "100")).toBe(false); // 99.9972 USD
    expect(usdValueExceeds(9260n, "EUR", "1.08", "100")).toBe(true); // 100.008 USD
    expect(usdValueExceeds(105263n, "BTC", "95000", "100")).toBe(false); // 99.99985 USD
    expect(usdValueExceeds(105264n, "BTC", "95000", "100")).toBe(true);
  });
});
