/**
 * The string-format checks of the API (names, label keys and values, config keys). Each
 * returns the list of problem texts the real server prints after `Invalid value: "<v>": `.
 */

const DNS1123_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN = `${DNS1123_LABEL}(\\.${DNS1123_LABEL})*`;
const QUALIFIED_NAME = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_VALUE = `(${QUALIFIED_NAME})?`;
const CONFIG_KEY = "[-._a-zA-Z0-9]+";

const whole = (fmt: string): RegExp => new RegExp(`^(?:${fmt})$`);
const DNS1123_LABEL_RE = whole(DNS1123_LABEL);
const DNS1123_SUBDOMAIN_RE = whole(DNS1123_SUBDOMAIN);
const QUALIFIED_NAME_RE = whole(QUALIFIED_NAME);
const LABEL_VALUE_RE = whole(LABEL_VALUE);
const CONFIG_KEY_RE = whole(CONFIG_KEY);

const QUALIFIED_NAME_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** The "(e.g. 'a',  or 'b', regex used for validation is '…')" suffix, double spaces included. */
function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  const shown = examples.map((e, i) => `${i > 0 ? " or " : ""}'${e}', `).join("");
  return `${msg} (e.g. ${shown}regex used for validation is '${fmt}')`;
}

const maxLen = (n: number): string => `must be no more than ${n} characters`;

export function dns1123Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLen(63));
  if (!DNS1123_LABEL_RE.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
        DNS1123_LABEL,
        "my-name",
        "123-abc",
      ),
    );
  }
  return errs;
}

const DNS1035_LABEL = "[a-z]([-a-z0-9]*[a-z0-9])?";
const DNS1035_LABEL_RE = whole(DNS1035_LABEL);

export function dns1035Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLen(63));
  if (!DNS1035_LABEL_RE.test(value)) {
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        DNS1035_LABEL,
        "my-name",
        "abc-123",
      ),
    );
  }
  return errs;
}

export function dns1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push(maxLen(253));
  if (!DNS1123_SUBDOMAIN_RE.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN,
        "example.com",
      ),
    );
  }
  return errs;
}

/** A generateName prefix is checked with its trailing '-' masked, since a suffix follows it. */
export function asNamePrefix(value: string): string {
  return value.endsWith("-") ? `${value.slice(0, -1)}a` : value;
}

/** Optional DNS-subdomain prefix and '/', then a name part of at most 63 characters. */
export function qualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split("/");
  let name: string;
  if (parts.length === 1) {
    name = parts[0] ?? "";
  } else if (parts.length === 2) {
    const prefix = parts[0] ?? "";
    name = parts[1] ?? "";
    if (prefix.length === 0) errs.push("prefix part must be non-empty");
    else errs.push(...dns1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME, "MyName", "my.name", "123-abc")} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push("name part must be non-empty");
  else if (name.length > 63) errs.push(`name part ${maxLen(63)}`);
  if (!QUALIFIED_NAME_RE.test(name)) {
    errs.push(`name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME, "MyName", "my.name", "123-abc")}`);
  }
  return errs;
}

export function labelValue(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLen(63));
  if (!LABEL_VALUE_RE.test(value)) {
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        LABEL_VALUE,
        "MyValue",
        "my_value",
        "12345",
      ),
    );
  }
  return errs;
}

export function configMapKey(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push(maxLen(253));
  if (!CONFIG_KEY_RE.test(value)) {
    errs.push(regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", CONFIG_KEY, "key.name", "KEY_NAME", "key-name"));
  }
  if (value === ".") errs.push("must not be '.'");
  else if (value === "..") errs.push("must not be '..'");
  else if (value.startsWith("..")) errs.push("must not start with '..'");
  return errs;
}

/**
 * path.ValidatePathSegmentName: the name rule of types whose names only have to be usable as one
 * path segment (RBAC roles and bindings, core v1 Events).
 */
export function pathSegmentName(name: string): string[] {
  if (name === "." || name === "..") return [`may not be '${name}'`];
  const errs: string[] = [];
  for (const bad of ["/", "%"]) if (name.includes(bad)) errs.push(`may not contain '${bad}'`);
  return errs;
}
