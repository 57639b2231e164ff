/**
 * The protobuf schema of the kinds the codec knows, written for this project from the field
 * tables of ../shared/docs/wire-facts.md §1.1-§1.4 (proto2, as every Kubernetes generated.proto
 * is). It is the single source of truth for the codec: protobufjs parses it, and the reflection
 * data (field numbers, types, repeated/map) plus two custom options drive both directions.
 *
 * Why the custom options: a .proto file cannot say what the Kubernetes wire form depends on,
 * namely whether the Go field is a pointer and what its JSON tag is. They are spelled as
 * custom field options, which protobufjs keeps verbatim in `field.options` without needing
 * the extension to be declared:
 *
 *   (ptr) = true                 the Go field is a pointer. Protobuf: written only when set.
 *                                JSON: left out when unset (every Kubernetes pointer is omitempty).
 *   (json) = "omitempty"         JSON tag omitempty on a non-pointer field. Protobuf still
 *                                ALWAYS writes the field, zero or not (wire-facts §1.0).
 *   (json) = "omitzero"          JSON tag omitzero (only metadata.creationTimestamp, since 1.34).
 *   (no option)                  not a pointer, JSON always written. For a repeated field or a
 *                                map: JSON `[]` / `{}` when empty (lists: `"items":[]`).
 *
 * Message declaration order = Go struct order = JSON key order of the served object; the
 * field numbers give the protobuf emission order (always ascending, wire-facts §1.0). The
 * two differ, e.g. OwnerReference (apiVersion=5 first in JSON) and ConfigMap (immutable=4
 * first in JSON).
 *
 * omitempty on a struct-typed field (Time, ObjectReference, ...) changes nothing in Go's
 * encoding/json (structs are never "empty"), so those fields carry no option: a zero
 * Time/MicroTime is then written as JSON `null`, a struct as `{}`.
 *
 * Four message types have a special JSON form, recognised by full name in codec.ts:
 * meta.v1 Time, MicroTime (RFC 3339 strings), FieldsV1 (raw JSON text inline) and
 * runtime.RawExtension (an embedded object); ExtraValue (a Go []string: a JSON array) and
 * intstr.IntOrString (a JSON number or string).
 *
 * Three more options: (json) = "null" for a Go pointer, slice or map without omitempty (JSON
 * null when unset), (inline) = true for a struct embedded with json:",inline", and
 * (key) = "..." for a JSON key that is not a proto identifier ("$ref", "x-kubernetes-...").
 *
 * Field numbers of the groups below: api@v0.35.7 rbac/v1, authentication/v1, authorization/v1,
 * admissionregistration/v1, discovery/v1 and core/v1 generated.proto; JSON tags from their types.go.
 */
import type protobuf from "protobufjs";
import { protobufjs } from "./protobufjs.js";

const RUNTIME = `
syntax = "proto2";
package k8s.io.apimachinery.pkg.runtime;

// The envelope TypeMeta: apiVersion=1, kind=2 (the reverse of meta.v1 TypeMeta).
message TypeMeta {
  optional string apiVersion = 1;
  optional string kind = 2;
}

message Unknown {
  optional TypeMeta typeMeta = 1;
  optional bytes raw = 2;
  optional string contentEncoding = 3;
  optional string contentType = 4;
}

// raw holds a serialized object: a full protobuf body (magic + Unknown) or JSON text.
message RawExtension {
  optional bytes raw = 1;
}
`;

// Go's intstr.IntOrString: type 0 = Int (intVal), 1 = String (strVal); a JSON number or string.
const INTSTR = `
syntax = "proto2";
package k8s.io.apimachinery.pkg.util.intstr;

message IntOrString {
  optional int64 type = 1;
  optional int32 intVal = 2;
  optional string strVal = 3;
}
`;

const META = `
syntax = "proto2";
package k8s.io.apimachinery.pkg.apis.meta.v1;

import "runtime.proto";
import "intstr.proto";

// Time: nanos are never written (always 0) and ignored when read. MicroTime: nanos
// truncated to microseconds. Both: the zero time is an empty message.
message Time {
  optional int64 seconds = 1;
  optional int32 nanos = 2;
}

message MicroTime {
  optional int64 seconds = 1;
  optional int32 nanos = 2;
}

// Raw is JSON text (e.g. "{}"); in JSON the value appears inline.
message FieldsV1 {
  optional bytes Raw = 1;
}

message TypeMeta {
  optional string kind = 1;
  optional string apiVersion = 2;
}

message ObjectMeta {
  optional string name = 1 [(json) = "omitempty"];
  optional string generateName = 2 [(json) = "omitempty"];
  optional string namespace = 3 [(json) = "omitempty"];
  optional string selfLink = 4 [(json) = "omitempty"];
  optional string uid = 5 [(json) = "omitempty"];
  optional string resourceVersion = 6 [(json) = "omitempty"];
  optional int64 generation = 7 [(json) = "omitempty"];
  optional Time creationTimestamp = 8 [(json) = "omitzero"];
  optional Time deletionTimestamp = 9 [(ptr) = true];
  optional int64 deletionGracePeriodSeconds = 10 [(ptr) = true];
  map<string, string> labels = 11 [(json) = "omitempty"];
  map<string, string> annotations = 12 [(json) = "omitempty"];
  repeated OwnerReference ownerReferences = 13 [(json) = "omitempty"];
  repeated string finalizers = 14 [(json) = "omitempty"];
  repeated ManagedFieldsEntry managedFields = 17 [(json) = "omitempty"];
}

message OwnerReference {
  optional string apiVersion = 5;
  optional string kind = 1;
  optional string name = 3;
  optional string uid = 4;
  optional bool controller = 6 [(ptr) = true];
  optional bool blockOwnerDeletion = 7 [(ptr) = true];
}

message ManagedFieldsEntry {
  optional string manager = 1 [(json) = "omitempty"];
  optional string operation = 2 [(json) = "omitempty"];
  optional string apiVersion = 3 [(json) = "omitempty"];
  optional Time time = 4 [(ptr) = true];
  optional string fieldsType = 6 [(json) = "omitempty"];
  optional FieldsV1 fieldsV1 = 7 [(ptr) = true];
  optional string subresource = 8 [(json) = "omitempty"];
}

message ListMeta {
  optional string selfLink = 1 [(json) = "omitempty"];
  optional string resourceVersion = 2 [(json) = "omitempty"];
  optional string continue = 3 [(json) = "omitempty"];
  optional int64 remainingItemCount = 4 [(ptr) = true];
}

message Status {
  optional ListMeta metadata = 1;
  optional string status = 2 [(json) = "omitempty"];
  optional string message = 3 [(json) = "omitempty"];
  optional string reason = 4 [(json) = "omitempty"];
  optional StatusDetails details = 5 [(ptr) = true];
  optional int32 code = 6 [(json) = "omitempty"];
}

message StatusDetails {
  optional string name = 1 [(json) = "omitempty"];
  optional string group = 2 [(json) = "omitempty"];
  optional string kind = 3 [(json) = "omitempty"];
  optional string uid = 6 [(json) = "omitempty"];
  repeated StatusCause causes = 4 [(json) = "omitempty"];
  optional int32 retryAfterSeconds = 5 [(json) = "omitempty"];
}

// JSON "reason" is the Go field Type.
message StatusCause {
  optional string reason = 1 [(json) = "omitempty"];
  optional string message = 2 [(json) = "omitempty"];
  optional string field = 3 [(json) = "omitempty"];
}

message WatchEvent {
  optional string type = 1;
  optional k8s.io.apimachinery.pkg.runtime.RawExtension object = 2;
}

message DeleteOptions {
  optional int64 gracePeriodSeconds = 1 [(ptr) = true];
  optional Preconditions preconditions = 2 [(ptr) = true];
  optional bool orphanDependents = 3 [(ptr) = true];
  optional string propagationPolicy = 4 [(ptr) = true];
  repeated string dryRun = 5 [(json) = "omitempty"];
  optional bool ignoreStoreReadErrorWithClusterBreakingPotential = 6 [(ptr) = true];
}

message Preconditions {
  optional string uid = 1 [(ptr) = true];
  optional string resourceVersion = 2 [(ptr) = true];
}

message ListOptions {
  optional string labelSelector = 1 [(json) = "omitempty"];
  optional string fieldSelector = 2 [(json) = "omitempty"];
  optional bool watch = 3 [(json) = "omitempty"];
  optional bool allowWatchBookmarks = 9 [(json) = "omitempty"];
  optional string resourceVersion = 4 [(json) = "omitempty"];
  optional string resourceVersionMatch = 10 [(json) = "omitempty"];
  optional int64 timeoutSeconds = 5 [(ptr) = true];
  optional int64 limit = 7 [(json) = "omitempty"];
  optional string continue = 8 [(json) = "omitempty"];
  optional bool sendInitialEvents = 11 [(ptr) = true];
}

message GetOptions {
  optional string resourceVersion = 1 [(json) = "omitempty"];
}

message CreateOptions {
  repeated string dryRun = 1 [(json) = "omitempty"];
  optional string fieldManager = 3 [(json) = "omitempty"];
  optional string fieldValidation = 4 [(json) = "omitempty"];
}

message UpdateOptions {
  repeated string dryRun = 1 [(json) = "omitempty"];
  optional string fieldManager = 2 [(json) = "omitempty"];
  optional string fieldValidation = 3 [(json) = "omitempty"];
}

message PatchOptions {
  repeated string dryRun = 1 [(json) = "omitempty"];
  optional bool force = 2 [(ptr) = true];
  optional string fieldManager = 3 [(json) = "omitempty"];
  optional string fieldValidation = 4 [(json) = "omitempty"];
}

message GroupVersionForDiscovery {
  optional string groupVersion = 1;
  optional string version = 2;
}

message ServerAddressByClientCIDR {
  optional string clientCIDR = 1;
  optional string serverAddress = 2;
}

message APIGroup {
  optional string name = 1;
  repeated GroupVersionForDiscovery versions = 2;
  optional GroupVersionForDiscovery preferredVersion = 3;
  repeated ServerAddressByClientCIDR serverAddressByClientCIDRs = 4 [(json) = "omitempty"];
}

message APIVersions {
  repeated string versions = 1;
  repeated ServerAddressByClientCIDR serverAddressByClientCIDRs = 2;
}

message LabelSelector {
  map<string, string> matchLabels = 1 [(json) = "omitempty"];
  repeated LabelSelectorRequirement matchExpressions = 2 [(json) = "omitempty"];
}

message LabelSelectorRequirement {
  optional string key = 1;
  optional string operator = 2;
  repeated string values = 3 [(json) = "omitempty"];
}

message FieldSelectorRequirement {
  optional string key = 1;
  optional string operator = 2;
  repeated string values = 3 [(json) = "omitempty"];
}

// observedGeneration is the only omitempty field.
message Condition {
  optional string type = 1;
  optional string status = 2;
  optional int64 observedGeneration = 3 [(json) = "omitempty"];
  optional Time lastTransitionTime = 4;
  optional string reason = 5;
  optional string message = 6;
}

message PartialObjectMetadata {
  optional ObjectMeta metadata = 1;
}

message PartialObjectMetadataList {
  optional ListMeta metadata = 1;
  repeated PartialObjectMetadata items = 2;
}
`;

const CORE = `
syntax = "proto2";
package k8s.io.api.core.v1;

import "meta.proto";

message ObjectReference {
  optional string kind = 1 [(json) = "omitempty"];
  optional string namespace = 2 [(json) = "omitempty"];
  optional string name = 3 [(json) = "omitempty"];
  optional string uid = 4 [(json) = "omitempty"];
  optional string apiVersion = 5 [(json) = "omitempty"];
  optional string resourceVersion = 6 [(json) = "omitempty"];
  optional string fieldPath = 7 [(json) = "omitempty"];
}

message EventSource {
  optional string component = 1 [(json) = "omitempty"];
  optional string host = 2 [(json) = "omitempty"];
}

message EventSeries {
  optional int32 count = 1 [(json) = "omitempty"];
  optional k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime lastObservedTime = 2;
}

// reportingComponent and reportingInstance are not omitempty in JSON.
message Event {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional ObjectReference involvedObject = 2;
  optional string reason = 3 [(json) = "omitempty"];
  optional string message = 4 [(json) = "omitempty"];
  optional EventSource source = 5;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time firstTimestamp = 6;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTimestamp = 7;
  optional int32 count = 8 [(json) = "omitempty"];
  optional string type = 9 [(json) = "omitempty"];
  optional k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime eventTime = 10;
  optional EventSeries series = 11 [(ptr) = true];
  optional string action = 12 [(json) = "omitempty"];
  optional ObjectReference related = 13 [(ptr) = true];
  optional string reportingComponent = 14;
  optional string reportingInstance = 15;
}

message EventList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Event items = 2;
}

message Namespace {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional NamespaceSpec spec = 2;
  optional NamespaceStatus status = 3;
}

message NamespaceSpec {
  repeated string finalizers = 1 [(json) = "omitempty"];
}

message NamespaceStatus {
  optional string phase = 1 [(json) = "omitempty"];
  repeated NamespaceCondition conditions = 2 [(json) = "omitempty"];
}

// There is no field 3.
message NamespaceCondition {
  optional string type = 1;
  optional string status = 2;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTransitionTime = 4;
  optional string reason = 5 [(json) = "omitempty"];
  optional string message = 6 [(json) = "omitempty"];
}

message NamespaceList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Namespace items = 2;
}

// JSON order immutable, data, binaryData; emission order 1, 2, 3, 4. binaryData values are
// base64 in JSON.
message ConfigMap {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional bool immutable = 4 [(ptr) = true];
  map<string, string> data = 2 [(json) = "omitempty"];
  map<string, bytes> binaryData = 3 [(json) = "omitempty"];
}

message LocalObjectReference {
  optional string name = 1 [(json) = "omitempty"];
}

message ServiceAccount {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated ObjectReference secrets = 2 [(json) = "omitempty"];
  repeated LocalObjectReference imagePullSecrets = 3 [(json) = "omitempty"];
  optional bool automountServiceAccountToken = 4 [(ptr) = true];
}

message ServiceAccountList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated ServiceAccount items = 2;
}

message ClientIPConfig {
  optional int32 timeoutSeconds = 1 [(ptr) = true];
}

message SessionAffinityConfig {
  optional ClientIPConfig clientIP = 1 [(ptr) = true];
}

// targetPort: omitempty cannot leave out a struct, so a zero IntOrString is written as 0.
message ServicePort {
  optional string name = 1 [(json) = "omitempty"];
  optional string protocol = 2 [(json) = "omitempty"];
  optional string appProtocol = 6 [(ptr) = true];
  optional int32 port = 3;
  optional k8s.io.apimachinery.pkg.util.intstr.IntOrString targetPort = 4;
  optional int32 nodePort = 5 [(json) = "omitempty"];
}

// JSON in Go struct order; field numbers 15 and 16 are retired (ipFamily, topologyKeys).
message ServiceSpec {
  repeated ServicePort ports = 1 [(json) = "omitempty"];
  map<string, string> selector = 2 [(json) = "omitempty"];
  optional string clusterIP = 3 [(json) = "omitempty"];
  repeated string clusterIPs = 18 [(json) = "omitempty"];
  optional string type = 4 [(json) = "omitempty"];
  repeated string externalIPs = 5 [(json) = "omitempty"];
  optional string sessionAffinity = 7 [(json) = "omitempty"];
  optional string loadBalancerIP = 8 [(json) = "omitempty"];
  repeated string loadBalancerSourceRanges = 9 [(json) = "omitempty"];
  optional string externalName = 10 [(json) = "omitempty"];
  optional string externalTrafficPolicy = 11 [(json) = "omitempty"];
  optional int32 healthCheckNodePort = 12 [(json) = "omitempty"];
  optional bool publishNotReadyAddresses = 13 [(json) = "omitempty"];
  optional SessionAffinityConfig sessionAffinityConfig = 14 [(ptr) = true];
  repeated string ipFamilies = 19 [(json) = "omitempty"];
  optional string ipFamilyPolicy = 17 [(ptr) = true];
  optional bool allocateLoadBalancerNodePorts = 20 [(ptr) = true];
  optional string loadBalancerClass = 21 [(ptr) = true];
  optional string internalTrafficPolicy = 22 [(ptr) = true];
  optional string trafficDistribution = 23 [(ptr) = true];
}

message PortStatus {
  optional int32 port = 1;
  optional string protocol = 2;
  optional string error = 3 [(ptr) = true];
}

message LoadBalancerIngress {
  optional string ip = 1 [(json) = "omitempty"];
  optional string hostname = 2 [(json) = "omitempty"];
  optional string ipMode = 3 [(ptr) = true];
  repeated PortStatus ports = 4 [(json) = "omitempty"];
}

message LoadBalancerStatus {
  repeated LoadBalancerIngress ingress = 1 [(json) = "omitempty"];
}

message ServiceStatus {
  optional LoadBalancerStatus loadBalancer = 1;
  repeated k8s.io.apimachinery.pkg.apis.meta.v1.Condition conditions = 2 [(json) = "omitempty"];
}

message Service {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional ServiceSpec spec = 2;
  optional ServiceStatus status = 3;
}

message ServiceList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Service items = 2;
}

message ConfigMapList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated ConfigMap items = 2;
}
`;

const EVENTS = `
syntax = "proto2";
package k8s.io.api.events.v1;

import "core.proto";

// events.k8s.io/v1beta1 Event has the same numbers and JSON tags (golden v1beta1 file).
message Event {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime eventTime = 2;
  optional EventSeries series = 3 [(ptr) = true];
  optional string reportingController = 4 [(json) = "omitempty"];
  optional string reportingInstance = 5 [(json) = "omitempty"];
  optional string action = 6 [(json) = "omitempty"];
  optional string reason = 7 [(json) = "omitempty"];
  optional k8s.io.api.core.v1.ObjectReference regarding = 8;
  optional k8s.io.api.core.v1.ObjectReference related = 9 [(ptr) = true];
  optional string note = 10 [(json) = "omitempty"];
  optional string type = 11 [(json) = "omitempty"];
  optional k8s.io.api.core.v1.EventSource deprecatedSource = 12;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time deprecatedFirstTimestamp = 13;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time deprecatedLastTimestamp = 14;
  optional int32 deprecatedCount = 15 [(json) = "omitempty"];
}

// Unlike core EventSeries, both fields are always written in JSON.
message EventSeries {
  optional int32 count = 1;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime lastObservedTime = 2;
}

message EventList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Event items = 2;
}
`;

const COORDINATION = `
syntax = "proto2";
package k8s.io.api.coordination.v1;

import "meta.proto";

message Lease {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional LeaseSpec spec = 2;
}

// Every LeaseSpec field is a pointer.
message LeaseSpec {
  optional string holderIdentity = 1 [(ptr) = true];
  optional int32 leaseDurationSeconds = 2 [(ptr) = true];
  optional k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime acquireTime = 3 [(ptr) = true];
  optional k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime renewTime = 4 [(ptr) = true];
  optional int32 leaseTransitions = 5 [(ptr) = true];
  optional string strategy = 6 [(ptr) = true];
  optional string preferredHolder = 7 [(ptr) = true];
}

message LeaseList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Lease items = 2;
}
`;

const AUTHENTICATION = `
syntax = "proto2";
package k8s.io.api.authentication.v1;

import "meta.proto";

// Go []string; JSON an array (special "stringList" in descriptors.ts).
message ExtraValue {
  repeated string items = 1;
}

// The .proto names field 4 "uID"; its JSON name is uid (names never reach the wire).
message BoundObjectReference {
  optional string kind = 1 [(json) = "omitempty"];
  optional string apiVersion = 2 [(json) = "omitempty"];
  optional string name = 3 [(json) = "omitempty"];
  optional string uid = 4 [(json) = "omitempty"];
}

message UserInfo {
  optional string username = 1 [(json) = "omitempty"];
  optional string uid = 2 [(json) = "omitempty"];
  repeated string groups = 3 [(json) = "omitempty"];
  map<string, ExtraValue> extra = 4 [(json) = "omitempty"];
}

message TokenReviewSpec {
  optional string token = 1 [(json) = "omitempty"];
  repeated string audiences = 2 [(json) = "omitempty"];
}

message TokenReviewStatus {
  optional bool authenticated = 1 [(json) = "omitempty"];
  optional UserInfo user = 2;
  repeated string audiences = 4 [(json) = "omitempty"];
  optional string error = 3 [(json) = "omitempty"];
}

message TokenReview {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional TokenReviewSpec spec = 2;
  optional TokenReviewStatus status = 3;
}

// No omitempty on any field, so unset ones are JSON null. (attestations = 5 came after 1.35.)
message TokenRequestSpec {
  repeated string audiences = 1 [(json) = "null"];
  optional int64 expirationSeconds = 4 [(ptr) = true, (json) = "null"];
  optional BoundObjectReference boundObjectRef = 3 [(ptr) = true, (json) = "null"];
}

message TokenRequestStatus {
  optional string token = 1;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time expirationTimestamp = 2;
}

message TokenRequest {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional TokenRequestSpec spec = 2;
  optional TokenRequestStatus status = 3;
}

message SelfSubjectReviewStatus {
  optional UserInfo userInfo = 1;
}

message SelfSubjectReview {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional SelfSubjectReviewStatus status = 2;
}
`;

const AUTHORIZATION = `
syntax = "proto2";
package k8s.io.api.authorization.v1;

import "meta.proto";

message ExtraValue {
  repeated string items = 1;
}

message FieldSelectorAttributes {
  optional string rawSelector = 1 [(json) = "omitempty"];
  repeated k8s.io.apimachinery.pkg.apis.meta.v1.FieldSelectorRequirement requirements = 2 [(json) = "omitempty"];
}

message LabelSelectorAttributes {
  optional string rawSelector = 1 [(json) = "omitempty"];
  repeated k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement requirements = 2 [(json) = "omitempty"];
}

message ResourceAttributes {
  optional string namespace = 1 [(json) = "omitempty"];
  optional string verb = 2 [(json) = "omitempty"];
  optional string group = 3 [(json) = "omitempty"];
  optional string version = 4 [(json) = "omitempty"];
  optional string resource = 5 [(json) = "omitempty"];
  optional string subresource = 6 [(json) = "omitempty"];
  optional string name = 7 [(json) = "omitempty"];
  optional FieldSelectorAttributes fieldSelector = 8 [(ptr) = true];
  optional LabelSelectorAttributes labelSelector = 9 [(ptr) = true];
}

message NonResourceAttributes {
  optional string path = 1 [(json) = "omitempty"];
  optional string verb = 2 [(json) = "omitempty"];
}

message SubjectAccessReviewSpec {
  optional ResourceAttributes resourceAttributes = 1 [(ptr) = true];
  optional NonResourceAttributes nonResourceAttributes = 2 [(ptr) = true];
  optional string user = 3 [(json) = "omitempty"];
  repeated string groups = 4 [(json) = "omitempty"];
  map<string, ExtraValue> extra = 5 [(json) = "omitempty"];
  optional string uid = 6 [(json) = "omitempty"];
}

message SelfSubjectAccessReviewSpec {
  optional ResourceAttributes resourceAttributes = 1 [(ptr) = true];
  optional NonResourceAttributes nonResourceAttributes = 2 [(ptr) = true];
}

message SubjectAccessReviewStatus {
  optional bool allowed = 1;
  optional bool denied = 4 [(json) = "omitempty"];
  optional string reason = 2 [(json) = "omitempty"];
  optional string evaluationError = 3 [(json) = "omitempty"];
}

message SubjectAccessReview {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional SubjectAccessReviewSpec spec = 2;
  optional SubjectAccessReviewStatus status = 3;
}

message LocalSubjectAccessReview {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional SubjectAccessReviewSpec spec = 2;
  optional SubjectAccessReviewStatus status = 3;
}

message SelfSubjectAccessReview {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional SelfSubjectAccessReviewSpec spec = 2;
  optional SubjectAccessReviewStatus status = 3;
}

message SelfSubjectRulesReviewSpec {
  optional string namespace = 1 [(json) = "omitempty"];
}

message ResourceRule {
  repeated string verbs = 1 [(json) = "null"];
  repeated string apiGroups = 2 [(json) = "omitempty"];
  repeated string resources = 3 [(json) = "omitempty"];
  repeated string resourceNames = 4 [(json) = "omitempty"];
}

message NonResourceRule {
  repeated string verbs = 1 [(json) = "null"];
  repeated string nonResourceURLs = 2 [(json) = "omitempty"];
}

message SubjectRulesReviewStatus {
  repeated ResourceRule resourceRules = 1 [(json) = "null"];
  repeated NonResourceRule nonResourceRules = 2 [(json) = "null"];
  optional bool incomplete = 3;
  optional string evaluationError = 4 [(json) = "omitempty"];
}

message SelfSubjectRulesReview {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional SelfSubjectRulesReviewSpec spec = 2;
  optional SubjectRulesReviewStatus status = 3;
}
`;

const RBAC = `
syntax = "proto2";
package k8s.io.api.rbac.v1;

import "meta.proto";

message PolicyRule {
  repeated string verbs = 1 [(json) = "null"];
  repeated string apiGroups = 2 [(json) = "omitempty"];
  repeated string resources = 3 [(json) = "omitempty"];
  repeated string resourceNames = 4 [(json) = "omitempty"];
  repeated string nonResourceURLs = 5 [(json) = "omitempty"];
}

message Subject {
  optional string kind = 1;
  optional string apiGroup = 2 [(json) = "omitempty"];
  optional string name = 3;
  optional string namespace = 4 [(json) = "omitempty"];
}

message RoleRef {
  optional string apiGroup = 1;
  optional string kind = 2;
  optional string name = 3;
}

message AggregationRule {
  repeated k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector clusterRoleSelectors = 1 [(json) = "omitempty"];
}

message Role {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated PolicyRule rules = 2 [(json) = "null"];
}

message ClusterRole {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated PolicyRule rules = 2 [(json) = "null"];
  optional AggregationRule aggregationRule = 3 [(ptr) = true];
}

message RoleBinding {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated Subject subjects = 2 [(json) = "omitempty"];
  optional RoleRef roleRef = 3;
}

message ClusterRoleBinding {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated Subject subjects = 2 [(json) = "omitempty"];
  optional RoleRef roleRef = 3;
}

message RoleList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Role items = 2;
}

message ClusterRoleList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated ClusterRole items = 2;
}

message RoleBindingList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated RoleBinding items = 2;
}

message ClusterRoleBindingList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated ClusterRoleBinding items = 2;
}
`;

const DISCOVERY = `
syntax = "proto2";
package k8s.io.api.discovery.v1;

import "core.proto";

message EndpointConditions {
  optional bool ready = 1 [(ptr) = true];
  optional bool serving = 2 [(ptr) = true];
  optional bool terminating = 3 [(ptr) = true];
}

message ForZone {
  optional string name = 1;
}

message ForNode {
  optional string name = 1;
}

message EndpointHints {
  repeated ForZone forZones = 1 [(json) = "omitempty"];
  repeated ForNode forNodes = 2 [(json) = "omitempty"];
}

// addresses has no omitempty: nil is null.
message Endpoint {
  repeated string addresses = 1 [(json) = "null"];
  optional EndpointConditions conditions = 2;
  optional string hostname = 3 [(ptr) = true];
  optional k8s.io.api.core.v1.ObjectReference targetRef = 4 [(ptr) = true];
  map<string, string> deprecatedTopology = 5 [(json) = "omitempty"];
  optional string nodeName = 6 [(ptr) = true];
  optional string zone = 7 [(ptr) = true];
  optional EndpointHints hints = 8 [(ptr) = true];
}

message EndpointPort {
  optional string name = 1 [(ptr) = true];
  optional string protocol = 2 [(ptr) = true];
  optional int32 port = 3 [(ptr) = true];
  optional string appProtocol = 4 [(ptr) = true];
}

// JSON order addressType, endpoints, ports; endpoints and ports have no omitempty.
message EndpointSlice {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional string addressType = 4;
  repeated Endpoint endpoints = 2 [(json) = "null"];
  repeated EndpointPort ports = 3 [(json) = "null"];
}

message EndpointSliceList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated EndpointSlice items = 2;
}
`;

const ADMISSIONREGISTRATION = `
syntax = "proto2";
package k8s.io.api.admissionregistration.v1;

import "meta.proto";

message MatchCondition {
  optional string name = 1;
  optional string expression = 2;
}

message ServiceReference {
  optional string namespace = 1;
  optional string name = 2;
  optional string path = 3 [(ptr) = true];
  optional int32 port = 4 [(ptr) = true];
}

// JSON order url, service, caBundle; caBundle is bytes (base64 in JSON).
message WebhookClientConfig {
  optional string url = 3 [(ptr) = true];
  optional ServiceReference service = 1 [(ptr) = true];
  optional bytes caBundle = 2 [(json) = "omitempty"];
}

message Rule {
  repeated string apiGroups = 1 [(json) = "omitempty"];
  repeated string apiVersions = 2 [(json) = "omitempty"];
  repeated string resources = 3 [(json) = "omitempty"];
  optional string scope = 4 [(ptr) = true];
}

// Rule is embedded with json:",inline": its fields sit beside operations in JSON.
message RuleWithOperations {
  repeated string operations = 1 [(json) = "omitempty"];
  optional Rule rule = 2 [(inline) = true];
}

message ValidatingWebhook {
  optional string name = 1;
  optional WebhookClientConfig clientConfig = 2;
  repeated RuleWithOperations rules = 3 [(json) = "omitempty"];
  optional string failurePolicy = 4 [(ptr) = true];
  optional string matchPolicy = 9 [(ptr) = true];
  optional k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector namespaceSelector = 5 [(ptr) = true];
  optional k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector objectSelector = 10 [(ptr) = true];
  optional string sideEffects = 6 [(ptr) = true, (json) = "null"];
  optional int32 timeoutSeconds = 7 [(ptr) = true];
  repeated string admissionReviewVersions = 8 [(json) = "null"];
  repeated MatchCondition matchConditions = 11 [(json) = "omitempty"];
}

message MutatingWebhook {
  optional string name = 1;
  optional WebhookClientConfig clientConfig = 2;
  repeated RuleWithOperations rules = 3 [(json) = "omitempty"];
  optional string failurePolicy = 4 [(ptr) = true];
  optional string matchPolicy = 9 [(ptr) = true];
  optional k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector namespaceSelector = 5 [(ptr) = true];
  optional k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector objectSelector = 11 [(ptr) = true];
  optional string sideEffects = 6 [(ptr) = true, (json) = "null"];
  optional int32 timeoutSeconds = 7 [(ptr) = true];
  repeated string admissionReviewVersions = 8 [(json) = "null"];
  optional string reinvocationPolicy = 10 [(ptr) = true];
  repeated MatchCondition matchConditions = 12 [(json) = "omitempty"];
}

// The .proto names field 2 "Webhooks"; JSON says webhooks.
message ValidatingWebhookConfiguration {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated ValidatingWebhook webhooks = 2 [(json) = "omitempty"];
}

message MutatingWebhookConfiguration {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated MutatingWebhook webhooks = 2 [(json) = "omitempty"];
}

message ValidatingWebhookConfigurationList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated ValidatingWebhookConfiguration items = 2;
}

message MutatingWebhookConfigurationList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated MutatingWebhookConfiguration items = 2;
}
`;

// Field numbers: apiextensions-apiserver@v0.35.7 apiextensions/v1 generated.proto; JSON tags
// from its types.go and types_jsonschema.go. (key) gives the JSON key where it is not a proto
// identifier ($schema, $ref, x-kubernetes-*). JSON, JSONSchemaPropsOr{Array,Bool,StringArray}
// have their own JSON forms (custom MarshalJSON), handled by full name in descriptors.ts.
const APIEXTENSIONS = `
syntax = "proto2";
package k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1;

import "meta.proto";

message ServiceReference {
  optional string namespace = 1;
  optional string name = 2;
  optional string path = 3 [(ptr) = true];
  optional int32 port = 4 [(ptr) = true];
}

message WebhookClientConfig {
  optional string url = 3 [(ptr) = true];
  optional ServiceReference service = 1 [(ptr) = true];
  optional bytes caBundle = 2 [(json) = "omitempty"];
}

message WebhookConversion {
  optional WebhookClientConfig clientConfig = 2 [(ptr) = true];
  repeated string conversionReviewVersions = 3 [(json) = "null"];
}

message CustomResourceConversion {
  optional string strategy = 1;
  optional WebhookConversion webhook = 2 [(ptr) = true];
}

message CustomResourceDefinitionNames {
  optional string plural = 1;
  optional string singular = 2 [(json) = "omitempty"];
  repeated string shortNames = 3 [(json) = "omitempty"];
  optional string kind = 4;
  optional string listKind = 5 [(json) = "omitempty"];
  repeated string categories = 6 [(json) = "omitempty"];
}

message ExternalDocumentation {
  optional string description = 1 [(json) = "omitempty"];
  optional string url = 2 [(json) = "omitempty"];
}

// Raw JSON text; in JSON the value appears inline (null when empty).
message JSON {
  optional bytes raw = 1;
}

message ValidationRule {
  optional string rule = 1;
  optional string message = 2 [(json) = "omitempty"];
  optional string messageExpression = 3 [(json) = "omitempty"];
  optional string reason = 4 [(ptr) = true];
  optional string fieldPath = 5 [(json) = "omitempty"];
  optional bool optionalOldSelf = 6 [(ptr) = true];
}

// JSON: an array when jSONSchemas is not empty, else the schema (null when unset).
message JSONSchemaPropsOrArray {
  optional JSONSchemaProps schema = 1 [(ptr) = true];
  repeated JSONSchemaProps jSONSchemas = 2;
}

// JSON: the schema when set, else the boolean allows; a schema read from JSON sets allows.
message JSONSchemaPropsOrBool {
  optional bool allows = 1;
  optional JSONSchemaProps schema = 2 [(ptr) = true];
}

// JSON: the string array when not empty, else the schema (null when neither).
message JSONSchemaPropsOrStringArray {
  optional JSONSchemaProps schema = 1 [(ptr) = true];
  repeated string property = 2;
}

message JSONSchemaProps {
  optional string id = 1 [(json) = "omitempty"];
  optional string schema = 2 [(key) = "$schema", (json) = "omitempty"];
  optional string ref = 3 [(key) = "$ref", (ptr) = true];
  optional string description = 4 [(json) = "omitempty"];
  optional string type = 5 [(json) = "omitempty"];
  optional string format = 6 [(json) = "omitempty"];
  optional string title = 7 [(json) = "omitempty"];
  optional JSON default = 8 [(ptr) = true];
  optional double maximum = 9 [(ptr) = true];
  optional bool exclusiveMaximum = 10 [(json) = "omitempty"];
  optional double minimum = 11 [(ptr) = true];
  optional bool exclusiveMinimum = 12 [(json) = "omitempty"];
  optional int64 maxLength = 13 [(ptr) = true];
  optional int64 minLength = 14 [(ptr) = true];
  optional string pattern = 15 [(json) = "omitempty"];
  optional int64 maxItems = 16 [(ptr) = true];
  optional int64 minItems = 17 [(ptr) = true];
  optional bool uniqueItems = 18 [(json) = "omitempty"];
  optional double multipleOf = 19 [(ptr) = true];
  repeated JSON enum = 20 [(json) = "omitempty"];
  optional int64 maxProperties = 21 [(ptr) = true];
  optional int64 minProperties = 22 [(ptr) = true];
  repeated string required = 23 [(json) = "omitempty"];
  optional JSONSchemaPropsOrArray items = 24 [(ptr) = true];
  repeated JSONSchemaProps allOf = 25 [(json) = "omitempty"];
  repeated JSONSchemaProps oneOf = 26 [(json) = "omitempty"];
  repeated JSONSchemaProps anyOf = 27 [(json) = "omitempty"];
  optional JSONSchemaProps not = 28 [(ptr) = true];
  map<string, JSONSchemaProps> properties = 29 [(json) = "omitempty"];
  optional JSONSchemaPropsOrBool additionalProperties = 30 [(ptr) = true];
  map<string, JSONSchemaProps> patternProperties = 31 [(json) = "omitempty"];
  map<string, JSONSchemaPropsOrStringArray> dependencies = 32 [(json) = "omitempty"];
  optional JSONSchemaPropsOrBool additionalItems = 33 [(ptr) = true];
  map<string, JSONSchemaProps> definitions = 34 [(json) = "omitempty"];
  optional ExternalDocumentation externalDocs = 35 [(ptr) = true];
  optional JSON example = 36 [(ptr) = true];
  optional bool nullable = 37 [(json) = "omitempty"];
  optional bool xKubernetesPreserveUnknownFields = 38 [(key) = "x-kubernetes-preserve-unknown-fields", (ptr) = true];
  optional bool xKubernetesEmbeddedResource = 39 [(key) = "x-kubernetes-embedded-resource", (json) = "omitempty"];
  optional bool xKubernetesIntOrString = 40 [(key) = "x-kubernetes-int-or-string", (json) = "omitempty"];
  repeated string xKubernetesListMapKeys = 41 [(key) = "x-kubernetes-list-map-keys", (json) = "omitempty"];
  optional string xKubernetesListType = 42 [(key) = "x-kubernetes-list-type", (ptr) = true];
  optional string xKubernetesMapType = 43 [(key) = "x-kubernetes-map-type", (ptr) = true];
  repeated ValidationRule xKubernetesValidations = 44 [(key) = "x-kubernetes-validations", (json) = "omitempty"];
}

message CustomResourceValidation {
  optional JSONSchemaProps openAPIV3Schema = 1 [(ptr) = true];
}

message CustomResourceSubresourceStatus {
}

message CustomResourceSubresourceScale {
  optional string specReplicasPath = 1;
  optional string statusReplicasPath = 2;
  optional string labelSelectorPath = 3 [(ptr) = true];
}

message CustomResourceSubresources {
  optional CustomResourceSubresourceStatus status = 1 [(ptr) = true];
  optional CustomResourceSubresourceScale scale = 2 [(ptr) = true];
}

message CustomResourceColumnDefinition {
  optional string name = 1;
  optional string type = 2;
  optional string format = 3 [(json) = "omitempty"];
  optional string description = 4 [(json) = "omitempty"];
  optional int32 priority = 5 [(json) = "omitempty"];
  optional string jsonPath = 6;
}

message SelectableField {
  optional string jsonPath = 1;
}

// JSON order name, served, storage, deprecated, deprecationWarning, schema, ...
message CustomResourceDefinitionVersion {
  optional string name = 1;
  optional bool served = 2;
  optional bool storage = 3;
  optional bool deprecated = 7 [(json) = "omitempty"];
  optional string deprecationWarning = 8 [(ptr) = true];
  optional CustomResourceValidation schema = 4 [(ptr) = true];
  optional CustomResourceSubresources subresources = 5 [(ptr) = true];
  repeated CustomResourceColumnDefinition additionalPrinterColumns = 6 [(json) = "omitempty"];
  repeated SelectableField selectableFields = 9 [(json) = "omitempty"];
}

// versions has no omitempty: nil is null.
message CustomResourceDefinitionSpec {
  optional string group = 1;
  optional CustomResourceDefinitionNames names = 3;
  optional string scope = 4;
  repeated CustomResourceDefinitionVersion versions = 7 [(json) = "null"];
  optional CustomResourceConversion conversion = 9 [(ptr) = true];
  optional bool preserveUnknownFields = 10 [(json) = "omitempty"];
}

message CustomResourceDefinitionCondition {
  optional string type = 1;
  optional string status = 2;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTransitionTime = 3;
  optional string reason = 4 [(json) = "omitempty"];
  optional string message = 5 [(json) = "omitempty"];
  optional int64 observedGeneration = 6 [(json) = "omitempty"];
}

// conditions and storedVersions have no omitempty: nil is null.
message CustomResourceDefinitionStatus {
  repeated CustomResourceDefinitionCondition conditions = 1 [(json) = "null"];
  optional CustomResourceDefinitionNames acceptedNames = 2;
  repeated string storedVersions = 3 [(json) = "null"];
  optional int64 observedGeneration = 4 [(json) = "omitempty"];
}

message CustomResourceDefinition {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional CustomResourceDefinitionSpec spec = 2;
  optional CustomResourceDefinitionStatus status = 3;
}

message CustomResourceDefinitionList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated CustomResourceDefinition items = 2;
}
`;

/** The .proto sources, by file name (the imports above refer to these names). */
const PROTO_SOURCES: Readonly<Record<string, string>> = {
  "runtime.proto": RUNTIME,
  "intstr.proto": INTSTR,
  "meta.proto": META,
  "core.proto": CORE,
  "events.proto": EVENTS,
  "coordination.proto": COORDINATION,
  "authentication.proto": AUTHENTICATION,
  "authorization.proto": AUTHORIZATION,
  "rbac.proto": RBAC,
  "admissionregistration.proto": ADMISSIONREGISTRATION,
  "discovery.proto": DISCOVERY,
  "apiextensions.proto": APIEXTENSIONS,
};

export const RUNTIME_PACKAGE = "k8s.io.apimachinery.pkg.runtime";
export const META_PACKAGE = "k8s.io.apimachinery.pkg.apis.meta.v1";
export const CORE_PACKAGE = "k8s.io.api.core.v1";
export const EVENTS_PACKAGE = "k8s.io.api.events.v1";
export const COORDINATION_PACKAGE = "k8s.io.api.coordination.v1";
export const INTSTR_PACKAGE = "k8s.io.apimachinery.pkg.util.intstr";
export const DISCOVERY_PACKAGE = "k8s.io.api.discovery.v1";
export const AUTHENTICATION_PACKAGE = "k8s.io.api.authentication.v1";
export const AUTHORIZATION_PACKAGE = "k8s.io.api.authorization.v1";
export const RBAC_PACKAGE = "k8s.io.api.rbac.v1";
export const ADMISSIONREGISTRATION_PACKAGE = "k8s.io.api.admissionregistration.v1";
export const APIEXTENSIONS_PACKAGE = "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1";

/** Parses all sources into one protobufjs Root (each source keeps its own package). */
export function loadRoot(): protobuf.Root {
  const pb = protobufjs();
  const root = new pb.Root();
  for (const source of Object.values(PROTO_SOURCES)) pb.parse(source, root, { keepCase: true });
  root.resolveAll();
  return root;
}
