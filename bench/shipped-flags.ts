// The node options the gateway ships with: the image's ENTRYPOINT and `npm start` (test/deploy
// checks both against this list). The bench starts its gateways with them, to measure the gateway
// as it runs deployed.
//
// --single-threaded-gc: V8 collects garbage on the main thread instead of waking helper threads for
// every young-generation collection; with a small heap on a core or two the helpers cost more than
// they save (README.md here: V8's parallel garbage collection). Node refuses it in NODE_OPTIONS, so
// it is on each command line.
//
// --lazy-new-space-shrinking: V8 otherwise shrinks the young generation and gives its pages back
// whenever it has allocated less than ~1 MB/s over the last few seconds, so the first calls after
// a quiet spell fault those pages in again and collect more often (README.md here, "GC regimes":
// quiet spells).
export const SHIPPED_NODE_FLAGS: readonly string[] = ['--single-threaded-gc', '--lazy-new-space-shrinking'];
