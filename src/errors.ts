// One error type for every expected failure; the HTTP layer maps it to { error, message } in one place.

export const errorStatus = {
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  VALIDATION_ERROR: 400,
  INSUFFICIENT_BALANCE: 400,
  TIER_LIMIT_EXCEEDED: 403,
  POLICY_LIMIT_EXCEEDED: 403,
  COUNTERPARTY_NOT_ALLOWED: 403,
  KEY_SCOPE_DENIED: 403,
  KEY_BUDGET_EXCEEDED: 403,
  KEY_INACTIVE: 403,
  AGENT_FROZEN: 403,
  METHOD_NOT_ALLOWED: 405,
  INVALID_STATE: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMIT_EXCEEDED: 429,
  PAIR_LIMIT_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
  CHAIN_UNAVAILABLE: 503,
  SERVICE_BUSY: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: { retryAfterSeconds?: number; details?: unknown; allow?: string } = {},
  ) {
    super(message);
    this.status = errorStatus[code];
  }
}

export const notFound = (what: string) => new ApiError("NOT_FOUND", `${what} not found`);
export const invalid = (message: string) => new ApiError("VALIDATION_ERROR", message);
export const invalidState = (message: string) => new ApiError("INVALID_STATE", message);
export const forbidden = (message: string) => new ApiError("FORBIDDEN", message);
/** A wait for a lock ran past its bound (a named lock's queue, PostgreSQL's lock_timeout): retry after a second. */
export const serviceBusy = (message: string) => new ApiError("SERVICE_BUSY", `the service is busy: ${message}; retry in a second`, { retryAfterSeconds: 1 });
