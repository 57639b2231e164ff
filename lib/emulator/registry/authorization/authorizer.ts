/**
 * The authorizer as the authorization.k8s.io review types need it: the attributes of a request
 * (apiserver's authorizer.Attributes, which a SubjectAccessReview spells out in its spec), the
 * decision, and the interface that decides. Defined here, where the reviews call it, and
 * implemented by auth/ (auth/rbac-authorizer.ts), which provides it to the REST overrides as
 * the AUTHORIZER capability when authentication is on.
 */
import type { User } from "../../apimachinery/user.js";
import { Capability } from "../generic/capabilities.js";

export interface ResourceAttributes {
  readonly kind: "resource";
  readonly verb: string;
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
}

export interface NonResourceAttributes {
  readonly kind: "nonResource";
  readonly verb: string;
  readonly path: string;
}

export type RequestAttributes = ResourceAttributes | NonResourceAttributes;

export interface Decision {
  readonly allowed: boolean;
  readonly reason: string;
}

export interface Authorizer {
  authorize(user: User, attributes: RequestAttributes): Promise<Decision>;
}

export const AUTHORIZER = new Capability<Authorizer>("authorizer");
