/** Small edits that wire faults share: a JSON body changed in place, and ready-made Status bodies. */

export const editJson = (body: string, edit: (o: Record<string, unknown>) => void): string => {
  const o = JSON.parse(body) as Record<string, unknown>;
  edit(o);
  return JSON.stringify(o);
};

/** A Status body of the given code, reason and message, as a server writes it. */
export const statusBody = (code: number, reason: string, message: string): string =>
  JSON.stringify({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, details: {}, code });

export const STATUS_404 = statusBody(404, "NotFound", "the server could not find the requested resource");
