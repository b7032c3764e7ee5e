// Kubernetes objects checked against the API's own JSON schemas, offline: kubernetes-models ships
// one generated validator per kind (of Kubernetes 1.3x), reached by apiVersion and kind.
import * as appsV1 from 'kubernetes-models/apps/v1';
import * as autoscalingV2 from 'kubernetes-models/autoscaling/v2';
import * as networkingV1 from 'kubernetes-models/networking.k8s.io/v1';
import * as policyV1 from 'kubernetes-models/policy/v1';
import * as coreV1 from 'kubernetes-models/v1';
import { isPlainObject } from './repo.js';

interface Validatable {
  validate(): void;
}
type ModelClass = new (data: unknown) => Validatable;

/** The API groups that deploy/ and the chart use; another one is reported, not skipped. */
const GROUPS: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  v1: coreV1,
  'apps/v1': appsV1,
  'autoscaling/v2': autoscalingV2,
  'networking.k8s.io/v1': networkingV1,
  'policy/v1': policyV1,
};

/**
 * The problems the schema finds in `object` (empty when it is valid). A kind the package has no
 * schema for (a custom resource) is a problem too: these tests should not pass by not looking.
 */
export function kubernetesSchemaProblems(object: unknown): string[] {
  if (!isPlainObject(object)) return ['not an object'];
  const { apiVersion, kind } = object;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return ['apiVersion and kind must be strings'];
  const group = GROUPS[apiVersion];
  if (group === undefined) return [`no schema for apiVersion ${apiVersion}`];
  const model = group[kind] as ModelClass | undefined;
  if (typeof model !== 'function') return [`no schema for ${kind} in ${apiVersion}`];
  try {
    new model(object).validate();
    return [];
  } catch (error) {
    return [error instanceof Error ? error.message : String(error)];
  }
}

/** "Deployment/switchboard", for messages. */
export function describeObject(object: unknown): string {
  if (!isPlainObject(object)) return String(object);
  const metadata = isPlainObject(object.metadata) ? object.metadata : {};
  return `${String(object.kind)}/${String(metadata.name)}`;
}
