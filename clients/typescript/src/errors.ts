// Typed errors: one class per kind of the store's error vocabulary
// (DESIGN.md, "Error vocabulary"), made from the server's `{error, message,
// field?, reason?, actualVersion?, eventId?, deleted?, stream?, position?}`
// body and status.

export interface ErrorBody {
  error?: unknown;
  message?: unknown;
  field?: unknown;
  reason?: unknown;
  actualVersion?: unknown;
  eventId?: unknown;
  deleted?: unknown;
  stream?: unknown;
  position?: unknown;
  [key: string]: unknown;
}

export class IndelibleError extends Error {
  /** The HTTP status, or 0 when no answer came (network error). */
  readonly status: number;
  /** The body's `error` field: `not_found`, `conflict`, `invalid`, ... */
  readonly code: string;
  /** The server's `X-Request-Id`, which its log names too. */
  readonly requestId?: string;
  /** The field or header that was wrong (`invalid`), or the answer's number past 2^53-1 (`unsafe_integer`). */
  readonly field?: string;
  /** The whole error body, for fields this client does not know. */
  readonly body?: ErrorBody;

  constructor(message: string, status: number, code: string, init: { requestId?: string; field?: string; body?: ErrorBody; cause?: unknown } = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    if (init.requestId !== undefined) this.requestId = init.requestId;
    if (init.field !== undefined) this.field = init.field;
    if (init.body !== undefined) this.body = init.body;
  }
}

/**
 * 409 `conflict`; nothing was written. `reason` says what about:
 * `'version'`, the expectation failed (`actualVersion` is the stream's last
 * version, `null` when it does not exist); `'event_id'`, an event id was
 * already used elsewhere (on another stream, or a retry that mixes written
 * and new ids): the stream's version is not what went wrong, so
 * `actualVersion` is undefined, and `eventId` names the id when the server
 * knows it; `'condition'`, a commit's condition failed (docs/DCB.md): an
 * event matching its query was written after its `after`, at `position`
 * (the first such); read again and decide anew. `actualVersion` is
 * undefined for it too.
 */
export class ConflictError extends IndelibleError {
  readonly reason: 'version' | 'event_id' | 'condition';
  /** Version conflicts: the stream's last version, `null` if it does not exist. Undefined for `event_id` and `condition`. */
  readonly actualVersion: number | null | undefined;
  /** Event-id conflicts: the id that was already used, when known. */
  readonly eventId?: string;
  /** The stream of the append that failed (commits name it; for `event_id`, the append that sent the id). */
  readonly stream?: string;
  /** Condition conflicts: the position of the first event after the condition's `after` that matches its query. */
  readonly position?: number;
  constructor(
    message: string,
    status: number,
    code: string,
    init: ConstructorParameters<typeof IndelibleError>[3] & {
      reason?: 'version' | 'event_id' | 'condition';
      actualVersion?: number | null;
      eventId?: string;
      stream?: string;
      position?: number;
    } = {},
  ) {
    super(message, status, code, init);
    this.reason = init.reason ?? 'version';
    this.actualVersion = this.reason === 'version' ? (init.actualVersion ?? null) : undefined;
    if (init.eventId !== undefined) this.eventId = init.eventId;
    if (init.stream !== undefined) this.stream = init.stream;
    if (init.position !== undefined) this.position = init.position;
  }
}

/** 404 `not_found`: unknown stream (or group, or route). */
export class NotFoundError extends IndelibleError {
  /** True when the stream existed and was deleted. */
  readonly deleted: boolean;
  constructor(message: string, status: number, code: string, init: ConstructorParameters<typeof IndelibleError>[3] & { deleted?: boolean } = {}) {
    super(message, status, code, init);
    this.deleted = init.deleted ?? false;
  }
}

/**
 * 400/405/415 `invalid`: bad input, `field` names it. Also what the client
 * refuses before sending anything (status 0): a member it does not know, a
 * position or version that is not a safe integer.
 */
export class InvalidError extends IndelibleError {}
/** 413/431 `too_large`, or 409 `too_large` (too many consumer groups). */
export class TooLargeError extends IndelibleError {}
/** 401: no or bad credentials. */
export class UnauthorizedError extends IndelibleError {}
/** 403: the credentials do not grant the right (or a browser check refused it). */
export class ForbiddenError extends IndelibleError {}
/** 422 `rejected`: a rule refused the command. */
export class RejectedError extends IndelibleError {}
/** 503, or no answer at all (connection refused or dropped, timeout): safe to retry. */
export class UnavailableError extends IndelibleError {
  /** The server's `Retry-After`, in ms, when it gave one. */
  retryAfterMs?: number;
}
/** 500 `internal`: a bug on the server; `requestId` finds it in the log. */
export class InternalError extends IndelibleError {}

/**
 * A codec (`ClientOptions.codecs`) threw, code `codec`, never retried;
 * `cause` is what it threw. Encoding (an append's or commit's event, status
 * 0): nothing was sent, `field` names the event (`events[1].data`).
 * Decoding (a read, subscription, pull or worker): `stream`, `version` and
 * `position` name the event, `status` is the answer's; a subscription ends
 * with it (the same event would come again), a worker nacks the event.
 */
export class CodecError extends IndelibleError {
  /** The event's type, whose codec threw. */
  readonly eventType: string;
  /** What the codec was doing. */
  readonly operation: 'encode' | 'decode';
  /** Decoding: the event's stream. */
  readonly stream?: string;
  /** Decoding: the event's version in its stream. */
  readonly version?: number;
  /** Decoding: the event's position. */
  readonly position?: number;
  constructor(
    message: string,
    status: number,
    init: ConstructorParameters<typeof IndelibleError>[3] & { eventType: string; operation: 'encode' | 'decode'; stream?: string; version?: number; position?: number },
  ) {
    super(message, status, 'codec', init);
    this.eventType = init.eventType;
    this.operation = init.operation;
    if (init.stream !== undefined) this.stream = init.stream;
    if (init.version !== undefined) this.version = init.version;
    if (init.position !== undefined) this.position = init.position;
  }
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** The typed error for an HTTP error answer. */
export function errorFromResponse(status: number, body: ErrorBody | undefined, requestId: string | undefined): IndelibleError {
  const code = str(body?.error) ?? (status === 503 ? 'unavailable' : status >= 500 ? 'internal' : 'http_' + status);
  const message = str(body?.message) ?? `HTTP ${status}`;
  const init = {
    ...(requestId !== undefined ? { requestId } : {}),
    ...(str(body?.field) !== undefined ? { field: str(body?.field)! } : {}),
    ...(body !== undefined ? { body } : {}),
  };
  // The code decides first (409 is conflict or too_large); the status
  // separates the two `unauthorized` cases (401 vs 403).
  if (code === 'conflict') {
    // Servers before the `reason` member sent version conflicts only.
    if (body?.reason === 'condition') {
      return new ConflictError(message, status, code, {
        ...init,
        reason: 'condition',
        ...(typeof body.position === 'number' ? { position: body.position } : {}),
      });
    }
    if (body?.reason === 'event_id') {
      return new ConflictError(message, status, code, {
        ...init,
        reason: 'event_id',
        ...(str(body.eventId) !== undefined ? { eventId: str(body.eventId)! } : {}),
        ...(str(body.stream) !== undefined ? { stream: str(body.stream)! } : {}),
      });
    }
    const actual = body?.actualVersion;
    return new ConflictError(message, status, code, {
      ...init,
      reason: 'version',
      actualVersion: typeof actual === 'number' ? actual : null,
      ...(str(body?.stream) !== undefined ? { stream: str(body?.stream)! } : {}),
    });
  }
  if (code === 'too_large' || status === 413 || status === 431) return new TooLargeError(message, status, code, init);
  if (status === 401) return new UnauthorizedError(message, status, code, init);
  if (status === 403) return new ForbiddenError(message, status, code, init);
  if (code === 'not_found' || status === 404) return new NotFoundError(message, status, code, { ...init, deleted: body?.deleted === true });
  if (code === 'rejected' || status === 422) return new RejectedError(message, status, code, init);
  if (code === 'invalid' || status === 400 || status === 405 || status === 415) return new InvalidError(message, status, code, init);
  if (code === 'unavailable' || status === 503) return new UnavailableError(message, status, code, init);
  if (code === 'internal' || status >= 500) return new InternalError(message, status, code, init);
  return new IndelibleError(message, status, code, init);
}

/** An UnavailableError for a request that got no answer. */
export function networkError(message: string, cause: unknown): UnavailableError {
  return new UnavailableError(message, 0, 'unavailable', { cause });
}
