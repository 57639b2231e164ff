/**
 * meta/v1 Time and MicroTime text (wire-facts §1.2): Time is written as RFC 3339 UTC without a
 * fraction and read with any fraction; MicroTime is written and read with exactly 6 fractional
 * digits. Parse failures produce Go's time.ParseError text because they surface in 400 bodies.
 */
import { goQuote } from "./field-errors.js";

const TIME_LAYOUT = "2006-01-02T15:04:05Z07:00";
const MICRO_TIME_LAYOUT = "2006-01-02T15:04:05.000000Z07:00";

export type ParsedTime = { ok: true; text: string | null } | { ok: false; error: string };

const pad = (n: number, width: number): string => String(n).padStart(width, "0");

/** Server-side "now" as a Time string. */
export function formatTime(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** Server-side "now" as a MicroTime string (microseconds are zero: JS clocks stop at ms). */
export function formatMicroTime(date: Date): string {
  return `${date.toISOString().slice(0, 23)}000Z`;
}

interface Fields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  micros: number;
  offsetSeconds: number;
}

/** The canonical forms, which read back as themselves when their fields are in range. */
const CANONICAL_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/;
const CANONICAL_MICRO_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.\d{6}Z$/;

/** Parses `text` like Go's time.Parse with one of the two layouts; null text means the zero value. */
export function parseApiTime(text: string, micro: boolean): ParsedTime {
  // The form the server writes (every stored time, most sent ones): the text is its own reading.
  const m = (micro ? CANONICAL_MICRO_TIME : CANONICAL_TIME).exec(text);
  if (m) {
    const month = Number(m[2]);
    const day = Number(m[3]);
    const inRange =
      month >= 1 && month <= 12 && Number(m[4]) <= 23 && Number(m[5]) <= 59 && Number(m[6]) <= 59 && day >= 1 && day <= daysIn(month, Number(m[1]));
    if (inRange) return { ok: true, text: text === (micro ? "0001-01-01T00:00:00.000000Z" : "0001-01-01T00:00:00Z") ? null : text };
  }
  return parseApiTimeAnyForm(text, micro);
}

/** parseApiTime for every form Go's parser takes (fractions, offsets, commas) and its errors; exported for tests. */
export function parseApiTimeAnyForm(text: string, micro: boolean): ParsedTime {
  const layout = micro ? MICRO_TIME_LAYOUT : TIME_LAYOUT;
  const fail = (valueElem: string, layoutElem: string): ParsedTime => ({
    ok: false,
    error: `parsing time ${goQuote(text)} as ${goQuote(layout)}: cannot parse ${goQuote(valueElem)} as ${goQuote(layoutElem)}`,
  });
  const failMsg = (message: string): ParsedTime => ({ ok: false, error: `parsing time ${goQuote(text)}${message}` });

  let rest = text;
  const digits = (n: number, elem: string): number | ParsedTime => {
    if (rest.length < n || !/^[0-9]+$/.test(rest.slice(0, n))) return fail(rest, elem);
    const v = Number(rest.slice(0, n));
    rest = rest.slice(n);
    return v;
  };
  const literal = (lit: string): ParsedTime | undefined => {
    if (!rest.startsWith(lit)) return fail(rest, lit);
    rest = rest.slice(lit.length);
    return undefined;
  };

  const f: Fields = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0, micros: 0, offsetSeconds: 0 };
  const steps: Array<() => ParsedTime | undefined> = [
    () => take(digits(4, "2006"), (v) => (f.year = v)),
    () => literal("-"),
    () => take(digits(2, "01"), (v) => (f.month = v)),
    () => literal("-"),
    () => take(digits(2, "02"), (v) => (f.day = v)),
    () => literal("T"),
    () => take(digits(2, "15"), (v) => (f.hour = v)),
    () => literal(":"),
    () => take(digits(2, "04"), (v) => (f.minute = v)),
    () => literal(":"),
    () => take(digits(2, "05"), (v) => (f.second = v)),
    () => (micro ? exactMicros() : optionalFraction()),
    () => zone(),
  ];
  function take(v: number | ParsedTime, set: (n: number) => void): ParsedTime | undefined {
    if (typeof v !== "number") return v;
    set(v);
    return undefined;
  }
  function exactMicros(): ParsedTime | undefined {
    if (rest.length < 7 || !/^[.,][0-9]{6}$/.test(rest.slice(0, 7))) return fail(rest, ".000000");
    f.micros = Number(rest.slice(1, 7));
    rest = rest.slice(7);
    return undefined;
  }
  // Go accepts a fraction after the seconds even when the layout has none.
  function optionalFraction(): ParsedTime | undefined {
    const m = /^[.,]([0-9]+)/.exec(rest);
    if (!m || m[1] === undefined) return undefined;
    f.micros = Number(m[1].slice(0, 6).padEnd(6, "0"));
    rest = rest.slice(m[0].length);
    return undefined;
  }
  function zone(): ParsedTime | undefined {
    if (rest.startsWith("Z")) {
      rest = rest.slice(1);
      return undefined;
    }
    const m = /^([+-])([0-9]{2}):([0-9]{2})/.exec(rest);
    if (!m) return fail(rest, "Z07:00");
    const sign = m[1] === "-" ? -1 : 1;
    f.offsetSeconds = sign * (Number(m[2]) * 3600 + Number(m[3]) * 60);
    rest = rest.slice(m[0].length);
    return undefined;
  }

  for (const step of steps) {
    const err = step();
    if (err) return err;
  }
  if (rest.length > 0) return failMsg(`: extra text: ${goQuote(rest)}`);
  if (f.month < 1 || f.month > 12) return failMsg(": month out of range");
  if (f.hour > 23) return failMsg(": hour out of range");
  if (f.minute > 59) return failMsg(": minute out of range");
  if (f.second > 59) return failMsg(": second out of range");
  if (f.day < 1 || f.day > daysIn(f.month, f.year)) return failMsg(": day out of range");

  const date = new Date(0);
  date.setUTCFullYear(f.year, f.month - 1, f.day);
  date.setUTCHours(f.hour, f.minute, f.second - f.offsetSeconds, 0);
  // Go's zero time (0001-01-01T00:00:00Z) is the zero value, which is written as null.
  if (
    date.getUTCFullYear() === 1 &&
    date.getUTCMonth() === 0 &&
    date.getUTCDate() === 1 &&
    date.getUTCHours() === 0 &&
    date.getUTCMinutes() === 0 &&
    date.getUTCSeconds() === 0 &&
    f.micros === 0
  ) {
    return { ok: true, text: null };
  }
  const base =
    `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCDate(), 2)}` +
    `T${pad(date.getUTCHours(), 2)}:${pad(date.getUTCMinutes(), 2)}:${pad(date.getUTCSeconds(), 2)}`;
  return { ok: true, text: micro ? `${base}.${pad(f.micros, 6)}Z` : `${base}Z` };
}

function daysIn(month: number, year: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}
