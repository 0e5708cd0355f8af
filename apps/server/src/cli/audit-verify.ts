import { createPlatform, runAuditVerify } from '@tessera/platform';
import type { ServerConfig } from '../config.js';
import { allMigrations } from '../migrations.js';

/** `npm run audit:verify [-- --tenant t]`: verifies each tenant's audit chain; names the first broken entry. */
export async function runAuditVerifyCommand(config: ServerConfig, tenants: string[] | undefined): Promise<number> {
  const platform = await createPlatform({ ...config, logging: { level: 'warn' } }, { migrations: allMigrations });
  try {
    const results = await runAuditVerify(platform, tenants);
    let broken = 0;
    for (const { tenantId, result } of results) {
      if (result.ok) console.log(`${tenantId}: ok (${result.events} events, ${result.checkpoints} checkpoints)`);
      else {
        broken++;
        console.log(
          `${tenantId}: BROKEN at seq ${result.firstBroken.seq} (event ${result.firstBroken.eventId}): ${result.firstBroken.reason}`,
        );
      }
    }
    return broken === 0 ? 0 : 2;
  } finally {
    await platform.close();
  }
}
