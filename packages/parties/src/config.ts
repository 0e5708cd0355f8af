import Type, { type Static } from 'typebox';

/** The `parties` configuration section (docs/configuration.md). */
export const PartiesConfigSchema = Type.Object(
  {
    /** Page size of a list that names none (001 §8: "page size is clamped"). */
    defaultPageSize: Type.Integer({ minimum: 1, maximum: 1000, default: 20 }),
    /** The largest page a list answers; a larger limit or size is clamped to it. */
    maxPageSize: Type.Integer({ minimum: 1, maximum: 1000, default: 200 }),
  },
  { default: {}, additionalProperties: false },
);

export type PartiesConfig = Static<typeof PartiesConfigSchema>;
