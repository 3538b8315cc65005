/** Asks `probe` every 25 ms until it answers something other than undefined; fails after `ms`. */
export async function waitFor<T>(probe: () => T | undefined | Promise<T | undefined>, ms = 8000): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await Bun.sleep(25);
  }
  throw new Error("timed out waiting");
}
