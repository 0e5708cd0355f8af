import { formatProfile, readProfile, summarizeProfile } from '../lib/profile.js';
const [file, top] = process.argv.slice(2);
console.log(formatProfile(summarizeProfile(await readProfile(file!), process.cwd() + '/'), Number(top ?? 30)));
