// Sets two CPU profiles of the same work side by side in µs per operation (bench/README.md, "Profiling a MISS"):
// a scenario against its floor, or a change against the commit before it. Each profile's self time is scaled to the
// CPU per operation that the bench printed for its run (`cpu us/op`, or the main thread's figure).
//   npx tsx bench/tools/compare-profiles.ts <a.cpuprofile> <a us/op> <b.cpuprofile> <b us/op> [functions] [top]
import { compareProfiles, formatComparison, readProfile, summarizeProfile } from '../lib/profile.js';

const [aFile, aUs, bFile, bUs, by = 'packages', top = '25'] = process.argv.slice(2);
if (!aFile || !bFile || !(Number(aUs) > 0) || !(Number(bUs) > 0) || (by !== 'packages' && by !== 'functions')) {
  console.error('usage: compare-profiles <a.cpuprofile> <a us/op> <b.cpuprofile> <b us/op> [packages|functions] [top]');
  process.exit(2);
}
const root = `${process.cwd()}/`;
const side = (file: string, us: string) => ({
  summary: summarizeProfile(readProfile(file), root),
  usPerOp: Number(us),
});
console.log(formatComparison(compareProfiles(side(aFile, aUs!), side(bFile, bUs!), by), Number(top)));
