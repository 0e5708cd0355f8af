import Type, { type Static } from 'typebox';

/** The `designs` configuration section (docs/configuration.md). */
export const DesignsConfigSchema = Type.Object({}, { default: {}, additionalProperties: false });

export type DesignsConfig = Static<typeof DesignsConfigSchema>;
