// The config in force: a reload replaces it, and everything the composition root builds reads it
// through here, so a reload needs no rewiring.
import type { Config } from '../config/schema.js';

export interface ConfigInForce {
  current: Config;
}
