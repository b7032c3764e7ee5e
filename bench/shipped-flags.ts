// The node options the gateway ships with: the image's ENTRYPOINT and `npm start` (test/deploy
// checks both against this list). The bench starts its gateways with them, to measure the gateway
// as it runs deployed.
//
// --single-threaded-gc: V8 collects garbage on the main thread instead of waking helper threads for
// every young-generation collection; with a small heap on a core or two the helpers cost more than
// they save (README, Benchmark). Node refuses it in NODE_OPTIONS, so it is on each command line.
export const SHIPPED_NODE_FLAGS: readonly string[] = ['--single-threaded-gc'];
