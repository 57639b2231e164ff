import { describe, expect, it } from "vitest";
import { History } from "../../lib/harness/history.js";
import { checkHistory } from "../../suites/support/history-checker.js";
import { clientDuty } from "../support/client-duty.js";

/** A sound history: three writes, two watchers (one from the start, one after the create). */
function sound(): History {
  const h = new History();
  const w0 = h.startWatcher("10");
  h.recordWrite("create", "ns/a", "11");
  const w1 = h.startWatcher("11");
  h.recordWrite("update", "ns/a", "12");
  h.recordWrite("delete", "ns/a");
  h.recordWrite("create", "ns/b", "14");
  w0.events.push(
    { type: "ADDED", key: "ns/a", rv: "11" },
    { type: "MODIFIED", key: "ns/a", rv: "12" },
    { type: "DELETED", key: "ns/a", rv: "13" },
    { type: "ADDED", key: "ns/b", rv: "14" },
  );
  w1.events.push(
    { type: "MODIFIED", key: "ns/a", rv: "12" },
    { type: "BOOKMARK", key: "/", rv: "12" },
    { type: "DELETED", key: "ns/a", rv: "13" },
    { type: "ADDED", key: "ns/b", rv: "14" },
  );
  return h;
}

describe("history checker", () => {
  it("accepts a sound history, bookmarks included", () => {
    expect(checkHistory(sound())).toEqual([]);
  });

  it("finds a missed write", () => {
    const h = sound();
    h.watchers[1]!.events.splice(2, 1);
    expect(checkHistory(h).join("\n")).toMatch(/watcher 1 .*event 1 is ADDED ns\/b@14, expected DELETED/);
  });

  it("finds a write reported twice", () => {
    const h = sound();
    h.watchers[0]!.events.push({ type: "ADDED", key: "ns/b", rv: "14" });
    expect(checkHistory(h).join("\n")).toMatch(/not newer than event 3/);
  });

  it("finds events out of order", () => {
    const h = sound();
    const ev = h.watchers[0]!.events;
    [ev[1], ev[2]] = [ev[2]!, ev[1]!];
    expect(checkHistory(h).length).toBeGreaterThan(0);
  });

  it("finds a deletion reported with the object's old version", () => {
    const h = sound();
    h.watchers[0]!.events[2] = { type: "DELETED", key: "ns/a", rv: "12" };
    h.watchers[1]!.events[2] = { type: "DELETED", key: "ns/a", rv: "12" };
    expect(checkHistory(h).join("\n")).toMatch(/does not carry a version newer than update ns\/a@12/);
  });

  it("finds a wrong event type and a wrong version", () => {
    const h = sound();
    h.watchers[0]!.events[1] = { type: "ADDED", key: "ns/a", rv: "12" };
    expect(checkHistory(h).join("\n")).toMatch(/expected MODIFIED/);
    const h2 = sound();
    h2.watchers[0]!.events[3] = { type: "ADDED", key: "ns/b", rv: "15" };
    expect(checkHistory(h2).join("\n")).toMatch(/carries another version/);
  });

  it("finds events replayed from before the start, and unexpected extra events", () => {
    const h = sound();
    h.watchers[1]!.events.unshift({ type: "ADDED", key: "ns/a", rv: "11" });
    expect(checkHistory(h).join("\n")).toMatch(/not newer than the start version/);
    const h2 = sound();
    h2.watchers[0]!.events.push({ type: "ADDED", key: "ns/c", rv: "20" });
    expect(checkHistory(h2).join("\n")).toMatch(/1 event\(s\) beyond the recorded writes/);
  });

  it("finds watchers that disagree on what a version was", () => {
    const h = sound();
    h.watchers[1]!.events[3] = { type: "ADDED", key: "ns/x", rv: "14" };
    expect(checkHistory(h).join("\n")).toMatch(/disagree on version 14/);
  });

  it("finds an ERROR event, and a no-op update is not owed an event", () => {
    const h = sound();
    h.watchers[0]!.events.push({ type: "ERROR", key: "/", rv: "99" });
    expect(checkHistory(h).join("\n")).toMatch(/ERROR event/);
    const h2 = new History();
    const w = h2.startWatcher("1");
    h2.recordWrite("create", "ns/a", "2");
    h2.recordWrite("update", "ns/a", "2");
    w.events.push({ type: "ADDED", key: "ns/a", rv: "2" });
    expect(h2.due(w)).toBe(1);
    expect(checkHistory(h2)).toEqual([]);
  });
});

describe("history checker and non-decimal versions", () => {
  clientDuty(
    {
      title: "never guesses an order for non-decimal versions, but still matches them by equality across watchers",
      rules: ["doc1.versioning.rv-non-decimal-equality"],
    },
    () => {
      const h = new History();
      const w0 = h.startWatcher("s0");
      const w1 = h.startWatcher("s0");
      h.recordWrite("create", "ns/a", "x-b");
      h.recordWrite("create", "ns/b", "x-a");
      w0.events.push({ type: "ADDED", key: "ns/a", rv: "x-b" }, { type: "ADDED", key: "ns/b", rv: "x-a" });
      w1.events.push({ type: "ADDED", key: "ns/a", rv: "x-b" }, { type: "ADDED", key: "ns/c", rv: "x-a" });
      const problems = checkHistory(h).join("\n");
      // A lexical order would accept "x-a" after "s0"; instead no ordered comparison succeeds…
      expect(problems).toMatch(/ADDED ns\/a@x-b is not newer than the start version/);
      expect(problems).toMatch(/ADDED ns\/b@x-a is not newer than event 0 ADDED ns\/a@x-b/);
      // …while equality still finds two watchers that disagree on one version.
      expect(problems).toMatch(/disagree on version x-a/);
    },
  );
});

describe("history checker messages", () => {
  it("names the watcher, the event and the write exactly, and stops pairing after the first mismatch", () => {
    const h = sound();
    h.watchers[0]!.events[0] = { type: "MODIFIED", key: "ns/a", rv: "11" };
    h.watchers[0]!.events[1] = { type: "ADDED", key: "ns/a", rv: "12" };
    expect(checkHistory(h)).toEqual([
      "watcher 0 (from 10, after write 0): event 0 is MODIFIED ns/a@11, expected ADDED for create ns/a@11 (write 0)",
      "watchers 0 and 1 disagree on version 12: ADDED ns/a@12 vs MODIFIED ns/a@12",
    ]);
  });

  it("lists at most five missed writes, a delete without its version", () => {
    const h = new History();
    const w = h.startWatcher("1");
    for (let i = 2; i <= 7; i++) h.recordWrite("create", `ns/o${i}`, String(i));
    h.recordWrite("delete", "ns/o2");
    expect(checkHistory(h)).toEqual([
      "watcher 0 (from 1, after write 0): 7 write(s) never reported: create ns/o2@2 (write 0), create ns/o3@3 (write 1), create ns/o4@4 (write 2), create ns/o5@5 (write 3), create ns/o6@6 (write 4), …",
    ]);
    w.events.push(...[2, 3, 4, 5, 6, 7].map((i) => ({ type: "ADDED" as const, key: `ns/o${i}`, rv: String(i) })));
    expect(checkHistory(h)).toEqual(["watcher 0 (from 1, after write 0): 1 write(s) never reported: delete ns/o2 (write 6)"]);
    w.events.push({ type: "DELETED", key: "ns/o2", rv: "8" });
    expect(checkHistory(h)).toEqual([]);
  });

  it("lists at most five events beyond the recorded writes", () => {
    const h = new History();
    const w = h.startWatcher("1");
    w.events.push(...[2, 3, 4, 5, 6, 7].map((i) => ({ type: "ADDED" as const, key: `ns/o${i}`, rv: String(i) })));
    expect(checkHistory(h)).toEqual([
      "watcher 0 (from 1, after write 0): 6 event(s) beyond the recorded writes: ADDED ns/o2@2, ADDED ns/o3@3, ADDED ns/o4@4, ADDED ns/o5@5, ADDED ns/o6@6",
    ]);
  });

  it("a delete's version must be older than the next write's", () => {
    const h = sound();
    h.watchers[0]!.events[2] = { type: "DELETED", key: "ns/a", rv: "14" };
    h.watchers[1]!.events[2] = { type: "DELETED", key: "ns/a", rv: "14" };
    expect(checkHistory(h)).toEqual(
      expect.arrayContaining([
        "watcher 0 (from 10, after write 0): event 3 ADDED ns/b@14 is not newer than event 2 DELETED ns/a@14",
        "watcher 0 (from 10, after write 0): DELETED ns/a@14 is not older than the next write create ns/b@14 (write 3)",
      ]),
    );
  });

  it("an ERROR event is reported once per watcher and compared with no other watcher; a bookmark is not an event", () => {
    const h = new History();
    const w0 = h.startWatcher("1");
    const w1 = h.startWatcher("1");
    h.recordWrite("create", "ns/a", "2");
    w0.events.push({ type: "ERROR", key: "/", rv: "2" }, { type: "ADDED", key: "ns/a", rv: "2" });
    w1.events.push({ type: "BOOKMARK", key: "/", rv: "2" }, { type: "ADDED", key: "ns/a", rv: "2" });
    expect(checkHistory(h)).toEqual([
      "watcher 0 (from 1, after write 0): ERROR event at 2",
      "watcher 0 (from 1, after write 0): event 1 ADDED ns/a@2 is not newer than event 0 ERROR /@2",
      "watcher 0 (from 1, after write 0): event 0 is ERROR /@2, expected ADDED for create ns/a@2 (write 0)",
      "watcher 0 (from 1, after write 0): 1 event(s) beyond the recorded writes: ADDED ns/a@2",
    ]);
  });

  it("a watcher started later owes only the writes after its start", () => {
    const h = new History();
    h.recordWrite("create", "ns/a", "2");
    const w = h.startWatcher("2");
    h.recordWrite("update", "ns/a", "3");
    w.events.push({ type: "MODIFIED", key: "ns/a", rv: "3" });
    expect(checkHistory(h)).toEqual([]);
  });
});

describe("history checker edges", () => {
  it("a decimal version is not newer than a non-decimal start", () => {
    const h = new History();
    const w = h.startWatcher("s0");
    h.recordWrite("create", "ns/a", "5");
    w.events.push({ type: "ADDED", key: "ns/a", rv: "5" });
    expect(checkHistory(h)).toEqual(["watcher 0 (from s0, after write 0): ADDED ns/a@5 is not newer than the start version"]);
  });

  it("an event of the right type for another object is a mismatch", () => {
    const h = sound();
    h.watchers[0]!.events[0] = { type: "ADDED", key: "ns/x", rv: "11" };
    expect(checkHistory(h)).toContain("watcher 0 (from 10, after write 0): event 0 is ADDED ns/x@11, expected ADDED for create ns/a@11 (write 0)");
  });

  it("five missed writes are all listed, without an ellipsis", () => {
    const h = new History();
    h.startWatcher("1");
    for (let i = 2; i <= 6; i++) h.recordWrite("create", `ns/o${i}`, String(i));
    expect(checkHistory(h)).toEqual([
      "watcher 0 (from 1, after write 0): 5 write(s) never reported: create ns/o2@2 (write 0), create ns/o3@3 (write 1), create ns/o4@4 (write 2), create ns/o5@5 (write 3), create ns/o6@6 (write 4)",
    ]);
  });
});
