import Type, { type Static } from 'typebox';

/** The `signing` configuration section (docs/configuration.md). */
export const SigningConfigSchema = Type.Object({}, { default: {}, additionalProperties: false });

export type SigningConfig = Static<typeof SigningConfigSchema>;
