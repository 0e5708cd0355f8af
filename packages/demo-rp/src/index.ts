/** The development demo relying party (README.md): `startDemoRelyingParty`. */
export { startDemoRelyingParty, type DemoRelyingParty, type DemoRelyingPartyOptions } from './server.js';
