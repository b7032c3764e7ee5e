/** A Redis that the global setup started for the test run, and how to stop it. */
export interface RunningRedis {
  url: string;
  stop(): Promise<void>;
}
