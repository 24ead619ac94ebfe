/*
 * conformance/conformance.h — entry point of `devharness conformance` (called by the
 * CLI in cli/main.c).
 */
#ifndef DEVHARNESS_CONFORMANCE_CONFORMANCE_H_
#define DEVHARNESS_CONFORMANCE_CONFORMANCE_H_

#ifdef __cplusplus
extern "C" {
#endif

/* Runs the conformance suite: every clause x every device of every loaded backend
 * (docs/contract.md), each case in a forked child with a timeout. argv[0] is
 * "conformance"; the options are described by `--help` (printed on stdout).
 * Output: TAP on stdout (TAP-14 subtests under a "TAP version 13" header by default),
 * optionally --tap FILE and --junit FILE (written through a temporary name + rename).
 * Returns the exit code (cmdline/cmdline.h): DH_EXIT_OK every clause kept, DH_EXIT_VIOLATION
 * violations, DH_EXIT_USAGE usage or input error (one line on stderr naming the option
 * or file), DH_EXIT_NO_DEVICE no selected backend has a device. Not thread-safe: call from the
 * main thread of a process that has not initialised any backend (the runner forks).
 */
int dh_conformance_main(int argc, char** argv);

/* `devharness merge BUNDLE... -o DIR` (argv[0] = "merge"): the shard bundles of one
 * conformance run joined (store/bundle.h dh_store_merge_main), with the merged
 * conformance.tap (flat layout), conformance.junit.xml and conformance.summary.json
 * written by the same reporters as a run's (docs/results.md "Shards"). Returns the
 * exit code its --help lists. */
int dh_conformance_merge_main(int argc, char** argv);

#ifdef __cplusplus
}
#endif
#endif /* DEVHARNESS_CONFORMANCE_CONFORMANCE_H_ */
