/**
 * The `/status` subresource of a type whose main resource ignores status (CRDs, and custom
 * resources with `subresources.status`): GET reads the object; PUT and PATCH change status
 * and nothing else. A status write keeps everything of the stored object but status, and the
 * managedFields the write computed (apiextensions statusStrategy.PrepareForUpdate), so
 * generation does not move.
 *
 * Known difference: managedFields entries of status writes do not carry
 * `subresource: status`.
 */
import { cloneJson } from "./json.js";
import { setMeta } from "./object-meta.js";
import type { ResourceStrategy } from "./resources.js";

export function statusStrategyOf(main: ResourceStrategy): ResourceStrategy {
  return {
    ...main,
    verbs: ["get", "patch", "update"],
    statusStrategy: undefined,
    prepareForUpdate(o, old) {
      const status = o["status"];
      const managedFields = o.metadata["managedFields"];
      for (const key of Object.keys(o)) delete o[key];
      Object.assign(o, cloneJson(old));
      if (status === undefined) delete o["status"];
      else o["status"] = status;
      setMeta(o, "managedFields", managedFields);
    },
  };
}
