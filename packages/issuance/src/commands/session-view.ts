import type { SessionState } from '../domain/session-machine.js';
import type { SessionRow } from '../storage/session-store.js';

/** The state of a session as the pipeline endpoints answer it (001 §4.2 leaves the bodies open; snake_case). */
export interface SessionSummary {
  correlation_id: string;
  pipeline_id: string;
  status: SessionState['status'];
  phase: SessionState['phase'];
  completed_phases: SessionState['completedPhases'];
  encryption_mode: SessionRow['encryptionMode'];
  expires_at: string;
}

export const sessionSummary = (row: SessionRow, state: SessionState = row.state): SessionSummary => ({
  correlation_id: row.correlationId,
  pipeline_id: row.pipeline.pipelineId,
  status: state.status,
  phase: state.phase,
  completed_phases: state.completedPhases,
  encryption_mode: row.encryptionMode,
  expires_at: row.expiresAt.toISOString(),
});
