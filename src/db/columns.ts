// Column types for a database opened with safeIntegers: every INTEGER arrives as a bigint, so money
// stays bigint end to end and counters/timestamps are turned into numbers here, in one place.
import { customType } from "drizzle-orm/sqlite-core";

/** An amount in minor units. Never a float. */
export const money = customType<{ data: bigint; driverData: bigint }>({
  dataType: () => "integer",
  fromDriver: (value) => BigInt(value),
});

/** A small integer: counters, scores, limits. */
export const int = customType<{ data: number; driverData: bigint | number }>({
  dataType: () => "integer",
  fromDriver: (value) => Number(value),
});

/** Milliseconds since the epoch. */
export const timestampMs = int;

/** JSON stored as text. */
export const json = <T>() =>
  customType<{ data: T; driverData: string }>({
    dataType: () => "text",
    toDriver: (value) => JSON.stringify(value),
    fromDriver: (value) => JSON.parse(value) as T,
  });
