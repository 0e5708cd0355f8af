/** The audit business ids of a stream command: the stream id, never its endpoint URL. */
export const streamIds = (input: { streamId?: string | undefined }): Record<string, string> =>
  input.streamId === undefined ? {} : { streamId: input.streamId };
