/**
 * DELETE of a namespaced collection: every object matching the selectors is deleted, each as
 * its own write (its own revision and DELETED event); the answer is the list of what was
 * listed for deletion, as the generic registry returns it. Each delete goes the way a single
 * DELETE's does (delete.ts: the type's delete override, else the generic delete).
 *
 * With a limit, only one page is deleted: the page limit and continue select, answered with
 * that page and its continue token, so a client deletes a large collection page by page
 * (the generic registry's DeleteCollection: "If the original request was setting the limit,
 * finish after running it"). Without one, every match is deleted.
 */

import { nameOf, namespaceOf } from "../../apimachinery/object-meta.js";
import { StoreError } from "../../storage/store.js";
import type { ListOptions } from "../list-options.js";
import { admittedWrites, retryWrite, storeConflict } from "./admission.js";
import type { RequestContext } from "./context.js";
import { deleteAdmitted } from "./delete.js";
import { parseDeleteOptions } from "./delete-options.js";
import { pageItems, readPage, writeList } from "./list.js";

export async function handleDeleteCollection(ctx: RequestContext, options: ListOptions, body: Buffer): Promise<void> {
  const { strategy } = ctx.route;
  const { generic } = ctx.parts;
  const deleteOptions = parseDeleteOptions(ctx, body);
  const page = await readPage(ctx, options.limit > 0 ? options : { ...options, limit: 0, continueToken: "" });
  const warnings: string[] = [];
  const writes = admittedWrites(ctx, warnings);
  for (const item of pageItems(ctx, page)) {
    // Each delete is a single DELETE's: read anew, admitted and deleted again when another write won the race.
    await retryWrite(async () => {
      const current = await generic.storage.get(strategy, namespaceOf(item), nameOf(item));
      // Gone already: the real server skips NotFound and reports nothing else here.
      if (!current) return;
      try {
        await deleteAdmitted(ctx, await writes.checkDelete(strategy, current, deleteOptions), deleteOptions);
      } catch (e) {
        // Deleted by another write between the read and the delete: gone, as above.
        if (e instanceof StoreError && e.code === "KeyNotFound") return;
        throw storeConflict(strategy, nameOf(item), e);
      }
    });
    // A collection delete that stops after its first object (failpoint deletecollection-deletes-one).
    if (ctx.parts.settings.failpoints.has("deletecollection-deletes-one")) break;
  }
  // The page holds the entries as listed (store entries never change), so this writes the objects as they were before the deletes.
  // The list answer carries no headers here: webhook warnings of a collection delete are not returned.
  return writeList(ctx, page);
}
