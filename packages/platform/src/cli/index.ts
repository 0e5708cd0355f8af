export { readStdinLine } from './read-stdin-line.js';
