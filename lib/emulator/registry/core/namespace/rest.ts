/**
 * The namespace's DELETE as a REST override (pkg/registry/core/namespace/storage REST.Delete):
 * the first DELETE marks the namespace Terminating and keeps it, the namespace controller
 * empties it, a repeated DELETE is a Conflict while the "kubernetes" finalizer holds it. The
 * work is the NamespaceLifecycle's (lifecycle.ts), one per server, which the override reaches
 * as the NAMESPACE_DELETER capability: the strategy is shared by every server in the process,
 * its lifecycle is not.
 */

import { Capability } from "../../generic/capabilities.js";
import type { DeleteOptions, DeleteOutcome } from "../../generic/options.js";
import type { RestDelete, RestDeleteRequest } from "../../generic/strategy.js";

/** What the override needs of a server's namespace lifecycle. */
export interface NamespaceDeleter {
  delete(existing: RestDeleteRequest["existing"], options: DeleteOptions): Promise<DeleteOutcome>;
}

export const NAMESPACE_DELETER = new Capability<NamespaceDeleter>("namespace deleter");

export const NAMESPACE_DELETE: RestDelete = {
  async delete({ existing, options, capabilities }) {
    const deleter = capabilities.get(NAMESPACE_DELETER);
    // Every server builds its namespace lifecycle with it; a server without one is a wiring mistake.
    if (!deleter) throw new Error("no namespace lifecycle on this server");
    return deleter.delete(existing, options);
  },
};
