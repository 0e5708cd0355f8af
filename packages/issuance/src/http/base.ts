/** 001 §4.2, §9: the version is in the path. */
export const PIPELINE_BASE_PATH = '/api/oid4vci/v1/backend';

/** A contribution of the largest shape the schemas allow stays below this; a larger body answers 413. */
export const PIPELINE_BODY_LIMIT_BYTES = 1024 * 1024;
