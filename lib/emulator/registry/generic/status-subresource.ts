/**
 * The `/status` subresource of a type whose main resource ignores status (CRDs, and custom
 * resources with `subresources.status`), as a subresource of the generic mechanism
 * (subresources.ts): GET reads the object; PUT and PATCH change status and nothing else. A
 * status write keeps everything of the stored object but status, and the managedFields the
 * write computed (apiextensions statusStrategy.PrepareForUpdate), so generation does not move.
 */
import { cloneJson } from "../../apimachinery/json.js";
import { setMeta } from "../../apimachinery/object-meta.js";
import type { ResourceStrategy, SubresourceStrategy } from "./strategy.js";

export function statusSubresourceOf(main: ResourceStrategy): SubresourceStrategy {
  return {
    name: "status",
    verbs: ["get", "patch", "update"],
    table: true,
    // The real status strategy's reset fields name spec only (other fields are dropped anyway).
    resetFields: ["spec"],
    prepareForUpdate(o, old) {
      const status = o["status"];
      const managedFields = o.metadata["managedFields"];
      for (const key of Object.keys(o)) delete o[key];
      Object.assign(o, cloneJson(old));
      if (status === undefined) delete o["status"];
      else o["status"] = status;
      setMeta(o, "managedFields", managedFields);
    },
    validateUpdate: (o, old) => main.validateUpdate(o, old),
  };
}
