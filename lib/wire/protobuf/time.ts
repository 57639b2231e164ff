/**
 * meta.v1 Time and MicroTime between their JSON text and their protobuf {seconds, nanos}
 * (wire-facts §1.2). Hand-written instead of going through Date because Date has millisecond
 * precision and maps two-digit years to 19xx; the arithmetic below is the usual
 * days-from-civil conversion on the proleptic Gregorian calendar, as Go's time package uses.
 */
import { ProtobufFormatError } from "./errors.js";

export interface Timestamp {
  /** Unix seconds. A plain number is exact: years 0000-9999 stay far below 2^53. */
  readonly seconds: number;
  /** 0 <= nanos < 1e9. */
  readonly nanos: number;
}

/** Go's zero time.Time (0001-01-01T00:00:00Z) in Unix seconds: the value JSON writes as null. */
const GO_ZERO_SECONDS = -62135596800;

export function isZeroTime(t: Timestamp): boolean {
  return t.seconds === GO_ZERO_SECONDS && t.nanos === 0;
}

function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(days: number): [number, number, number] {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (month <= 2 ? 1 : 0), month, day];
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Parses a JSON time string.
 * - Time: any RFC 3339 string, a fraction allowed (Go `time.Parse(time.RFC3339, s)`).
 * - MicroTime: the fixed layout `2006-01-02T15:04:05.000000Z07:00`, so exactly 6 fractional
 *   digits; anything else is rejected as the real server does (400).
 * Throws ProtobufFormatError naming `path`.
 */
export function parseTime(text: string, micro: boolean, path: string): Timestamp {
  const m = RFC3339.exec(text);
  const bad = (why: string): ProtobufFormatError =>
    new ProtobufFormatError(`${path}: cannot parse ${JSON.stringify(text)} as ${micro ? "MicroTime" : "Time"}: ${why}`);
  if (!m) throw bad(micro ? "expected 2006-01-02T15:04:05.000000Z07:00" : "expected RFC 3339");
  const [, ys, mos, ds, hs, mis, ss, frac, zone] = m as unknown as [string, string, string, string, string, string, string, string | undefined, string];
  if (micro && (frac === undefined || frac.length !== 6)) throw bad("MicroTime needs exactly 6 fractional digits");
  const year = Number(ys);
  const month = Number(mos);
  const day = Number(ds);
  const hour = Number(hs);
  const minute = Number(mis);
  const second = Number(ss);
  if (month < 1 || month > 12) throw bad("month out of range");
  if (day < 1 || day > daysInMonth(year, month)) throw bad("day out of range");
  if (hour > 23) throw bad("hour out of range");
  if (minute > 59) throw bad("minute out of range");
  if (second > 59) throw bad("second out of range");
  let offset = 0;
  if (zone !== "Z") {
    const oh = Number(zone.slice(1, 3));
    const om = Number(zone.slice(4, 6));
    if (oh > 23 || om > 59) throw bad("time zone offset out of range");
    offset = (zone.startsWith("-") ? -1 : 1) * (oh * 3600 + om * 60);
  }
  // Go reads at most 9 digits of a fraction (nanoseconds); later digits do not matter.
  const nanos = frac === undefined ? 0 : Number(frac.slice(0, 9).padEnd(9, "0"));
  const seconds = daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset;
  return { seconds, nanos };
}

const D0 = 48;

function digits(text: string, at: number, count: number): number {
  let n = 0;
  for (let i = at; i < at + count; i++) {
    const d = text.charCodeAt(i) - D0;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

/**
 * parseTime for the two forms servers write, `2006-01-02T15:04:05Z` (Time) and
 * `2006-01-02T15:04:05.000000Z` (MicroTime), without the regex and the match array (a list
 * encodes one or more per item); undefined for anything else, which parseTime then reads (and
 * rejects with its message when it must). The same ranges as parseTime are checked.
 */
export function parseCanonicalTime(text: string, micro: boolean): Timestamp | undefined {
  const n = text.length;
  if (n !== (micro ? 27 : 20) || text.charCodeAt(n - 1) !== 90 /* Z */) return undefined;
  if (text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 84 || text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58)
    return undefined;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  const second = digits(text, 17, 2);
  let nanos = 0;
  if (micro) {
    if (text.charCodeAt(19) !== 46 /* . */) return undefined;
    const us = digits(text, 20, 6);
    if (us < 0) return undefined;
    nanos = us * 1000;
  }
  if (
    year < 0 ||
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > daysInMonth(year, month) ||
    hour < 0 ||
    hour > 23 ||
    minute < 0 ||
    minute > 59 ||
    second < 0 ||
    second > 59
  ) {
    return undefined;
  }
  return { seconds: daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second, nanos };
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, "0");
}

/**
 * JSON text of a non-zero time, in UTC: Time without a fraction, MicroTime with exactly 6
 * fractional digits (nanos truncated to microseconds). Years outside 0000-9999 cannot be
 * written as RFC 3339 and throw ProtobufFormatError.
 */
export function formatTime(t: Timestamp, micro: boolean, path: string): string {
  const days = Math.floor(t.seconds / 86400);
  const secOfDay = t.seconds - days * 86400;
  const [year, month, day] = civilFromDays(days);
  if (year < 0 || year > 9999) throw new ProtobufFormatError(`${path}: time ${t.seconds}s is outside the years 0000-9999`);
  const base =
    `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T` +
    `${pad(Math.floor(secOfDay / 3600), 2)}:${pad(Math.floor((secOfDay % 3600) / 60), 2)}:${pad(secOfDay % 60, 2)}`;
  return micro ? `${base}.${pad(Math.floor(t.nanos / 1000), 6)}Z` : `${base}Z`;
}

/**
 * Normalises seconds/nanos as Go's time.Unix does (nanos outside [0, 1e9) carry into the
 * seconds), so a peer that writes odd nanos still decodes to a valid time.
 */
export function normaliseTimestamp(seconds: number, nanos: number): Timestamp {
  const carry = Math.floor(nanos / 1e9);
  return { seconds: seconds + carry, nanos: nanos - carry * 1e9 };
}
