// Delivers PENDING outbox events after commit. Placeholder until the webhook dispatcher lands.
export function wakeDispatcher(): void {}
