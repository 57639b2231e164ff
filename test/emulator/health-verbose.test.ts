/** /healthz, /livez, /readyz: plain `ok`, the verbose list of checks, ?exclude=, and single checks (wire-facts §22). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmulatorServer, type EmulatorServer } from "../../lib/emulator/endpoints/server.js";
import { resolveSettings } from "../../lib/emulator/options.js";
import { client } from "./support.js";

let emu: EmulatorServer;
let call: ReturnType<typeof client>;

beforeAll(async () => {
  emu = createEmulatorServer(resolveSettings({}));
  call = client(await emu.listen("127.0.0.1", 0));
});
afterAll(async () => {
  await emu.close();
});

describe("health endpoints", () => {
  it("answer a bare ok, as text/plain with nosniff", async () => {
    for (const path of ["/healthz", "/livez", "/readyz"]) {
      const r = await call("GET", path);
      expect(r.status).toBe(200);
      expect(r.text).toBe("ok");
      expect(r.headers["content-type"]).toBe("text/plain; charset=utf-8");
      expect(r.headers["x-content-type-options"]).toBe("nosniff");
    }
  });

  it("list their checks with ?verbose (any value), then `<endpoint> check passed` and a newline", async () => {
    const common = "[+]ping ok\n[+]log ok\n[+]etcd ok\n";
    expect((await call("GET", "/livez?verbose")).text).toBe(`${common}livez check passed\n`);
    expect((await call("GET", "/healthz?verbose=false")).text).toBe(`${common}healthz check passed\n`);
    expect((await call("GET", "/readyz?verbose=1")).text).toBe(`${common}[+]etcd-readiness ok\n[+]informer-sync ok\n[+]shutdown ok\nreadyz check passed\n`);
  });

  it("mark excluded checks and warn of names that match none, sorted and quoted", async () => {
    const r = await call("GET", "/readyz?verbose&exclude=etcd&exclude=zeta&exclude=shutdown&exclude=alpha");
    expect(r.status).toBe(200);
    expect(r.text).toBe(
      "[+]ping ok\n[+]log ok\n[+]etcd excluded: ok\n[+]etcd-readiness ok\n[+]informer-sync ok\n[+]shutdown excluded: ok\n" +
        'warn: some health checks cannot be excluded: no matches for "alpha","zeta"\nreadyz check passed\n',
    );
    // Without ?verbose the list (warning included) is not shown.
    expect((await call("GET", "/livez?exclude=nope")).text).toBe("ok");
  });

  it("serve each check on its own path; a check the endpoint lacks is 404", async () => {
    for (const path of ["/livez/ping", "/readyz/etcd", "/readyz/informer-sync", "/healthz/log"]) {
      const r = await call("GET", path);
      expect(r.status, path).toBe(200);
      expect(r.text, path).toBe("ok");
    }
    const missing = await call("GET", "/livez/informer-sync");
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ kind: "Status", reason: "NotFound" });
  });
});
