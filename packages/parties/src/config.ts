import Type, { type Static } from 'typebox';

/** The `parties` configuration section (docs/configuration.md). */
export const PartiesConfigSchema = Type.Object({}, { default: {}, additionalProperties: false });

export type PartiesConfig = Static<typeof PartiesConfigSchema>;
