import { invalidField } from './errors.js';
import { isPhase, type Phase } from './phases.js';

/** One contributed group as it arrives (001 §2.2, "group"). */
export interface ContributionGroup {
  contributorId: string;
  phase: string;
  connectorFields?: Record<string, string> | undefined;
  semanticAttributeSets?: { bundleId: string; values: Record<string, unknown> }[] | undefined;
  attributes?: { path: string; value: unknown }[] | undefined;
}

/** An attribute about to enter the bag, with its provenance. */
export interface AttributeRecord {
  path: string;
  value: unknown;
  contributorId: string;
  phase: Phase;
  bundleId: string | null;
}

export interface ConnectorFieldRecord {
  name: string;
  value: string;
  contributorId: string;
  phase: Phase;
}

export interface FlattenedContribution {
  attributes: AttributeRecord[];
  connectorFields: ConnectorFieldRecord[];
  /** The contributors named by the groups, in order, once each, with the phase they contributed in. */
  contributors: { contributorId: string; phase: Phase }[];
}

/**
 * Flattens groups into attribute records and connector fields (001 §2.2). A semantic attribute set's values
 * become attributes whose path is the value's key, recorded with the set's bundleId; connector fields stay apart
 * and never become attributes. `pinnedPhase`: a callback contribution runs in the deferred phase only (001 §4.2).
 */
export function flattenGroups(groups: readonly ContributionGroup[], pinnedPhase?: Phase): FlattenedContribution {
  const attributes: AttributeRecord[] = [];
  const connectorFields: ConnectorFieldRecord[] = [];
  const contributors: { contributorId: string; phase: Phase }[] = [];
  groups.forEach((group, i) => {
    const phase = group.phase;
    if (!isPhase(phase)) throw invalidField(`groups[${i}].phase`, 'Not a lifecycle phase of 001 §2.2.');
    if (pinnedPhase !== undefined && phase !== pinnedPhase)
      throw invalidField(`groups[${i}].phase`, `A callback contributes in ${pinnedPhase} only.`);
    const { contributorId } = group;
    if (!contributors.some((c) => c.contributorId === contributorId && c.phase === phase))
      contributors.push({ contributorId, phase });
    for (const [name, value] of Object.entries(group.connectorFields ?? {}))
      connectorFields.push({ name, value, contributorId, phase });
    for (const set of group.semanticAttributeSets ?? [])
      for (const [path, value] of Object.entries(set.values))
        attributes.push({ path, value, contributorId, phase, bundleId: set.bundleId });
    for (const { path, value } of group.attributes ?? [])
      attributes.push({ path, value, contributorId, phase, bundleId: null });
  });
  attributes.forEach((a, i) => {
    if (a.value === undefined) throw invalidField(`attributes[${i}].value`, 'An attribute has a value.');
  });
  return { attributes, connectorFields, contributors };
}
