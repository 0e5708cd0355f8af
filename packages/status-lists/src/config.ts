import Type, { type Static } from 'typebox';

/** The `statusLists` configuration section (docs/configuration.md). */
export const StatusListsConfigSchema = Type.Object({}, { default: {}, additionalProperties: false });

export type StatusListsConfig = Static<typeof StatusListsConfigSchema>;
