// Checks on both sides of the wire.
//
// What a caller passes is checked before anything is sent: JavaScript
// callers and casts get past TypeScript's types, and a member the client
// does not know (`expectedVersion` for `expected`) would otherwise be left
// out without a word, so the request would go out without it and succeed.
//
// Positions and versions are JS numbers, exact up to 2^53-1. The server
// counts to 2^62, so a number past that, going out or coming back, is
// refused rather than rounded to a neighbour.

import { IndelibleError, InvalidError } from './errors.js';

/** The caller's mistake, found before any request: InvalidError with status 0. */
export function invalidArgument(call: string, field: string, message: string): InvalidError {
  return new InvalidError(`indelible: ${call}: ${field} ${message}`, 0, 'invalid', { field });
}

/** The first member of `value` that is not in `known`, or undefined. */
export function unknownMember(value: object, known: ReadonlySet<string>): string | undefined {
  // for-in, not Object.keys: no array per call. Inherited members count,
  // as reading `options.expected` would find them too.
  for (const key in value) if (!known.has(key)) return key;
  return undefined;
}

/**
 * The error for member `key` of the object at `at` in the call (`events[2]`,
 * `appends[0].state`; '' for the call's options), named as the server
 * names fields.
 */
export function unknownMemberError(call: string, at: string, key: string, known: ReadonlySet<string>): InvalidError {
  const field = at === '' ? key : `${at}.${key}`;
  return invalidArgument(call, field, `is not a member the client knows (${at === '' ? 'the options' : at} may have ${[...known].join(', ')}); nothing was sent`);
}

/** An options object: undefined (left out), or an object with only known members. */
export function checkObject(value: unknown, known: ReadonlySet<string>, call: string, at: string): void {
  if (value === undefined) return;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalidArgument(call, at === '' ? 'options' : at, `must be an object, not ${describeValue(value)}`);
  const key = unknownMember(value, known);
  if (key !== undefined) throw unknownMemberError(call, at, key, known);
}

export const LIMIT_NOTE = "indelible's TypeScript client handles positions and versions up to 2^53-1 (Number.MAX_SAFE_INTEGER)";

/**
 * A position, version or count going out: a safe integer >= `min`. A
 * number past 2^53-1 is refused: JS has already rounded it, and the server
 * would act on a neighbour of what the caller meant.
 */
export function checkInteger(value: unknown, call: string, field: string, min = 0): void {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= min) return;
  throw invalidArgument(call, field, `must be an integer from ${min} to 2^53-1, not ${describeValue(value)} (${LIMIT_NOTE})`);
}

/** Like checkInteger, for a member that may be left out. */
export function checkOptionalInteger(value: unknown, call: string, field: string, min = 0): void {
  if (value !== undefined) checkInteger(value, call, field, min);
}

/** Where an answer came from, for the error when it holds a number past 2^53-1. */
export interface AnswerContext {
  status: number;
  method: string;
  path: string;
  header(name: string): string | null;
}

/**
 * A position or version in an answer: returned when it is a safe integer,
 * else the call fails (IndelibleError `unsafe_integer`) rather than hand
 * back a rounded number. `field` names it (`position`, `event version`).
 */
export function answerInteger(value: unknown, answer: AnswerContext, field: string): number {
  if (Number.isSafeInteger(value)) return value as number;
  throw unsafeAnswer(value, answer, field);
}

export function unsafeAnswer(value: unknown, answer: AnswerContext, field: string, body?: Record<string, unknown>): IndelibleError {
  const requestId = answer.header('x-request-id') ?? undefined;
  const what = typeof value === 'number' && Number.isInteger(value) ? `${String(value)}, past 2^53-1: a JS number cannot hold it exactly (the server's may be a neighbour of it)` : `${describeValue(value)}, not an integer`;
  return new IndelibleError(`indelible: ${answer.method} ${answer.path}: the answer's ${field} is ${what}; ${LIMIT_NOTE}`, answer.status, 'unsafe_integer', {
    ...(requestId !== undefined ? { requestId } : {}),
    field,
    ...(body !== undefined ? { body } : {}),
  });
}

export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? value.slice(0, 40) + '...' : value);
  if (typeof value === 'bigint') return `${value}n (a bigint)`;
  if (value === null || value === undefined || typeof value !== 'object') return String(value);
  return Array.isArray(value) ? 'an array' : 'an object';
}
