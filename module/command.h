/*
 * module/command.h — entry point of `devharness module` (called by the CLI in
 * cli/main.c); docs/kernel-libraries.md.
 */
#ifndef DEVHARNESS_MODULE_COMMAND_H_
#define DEVHARNESS_MODULE_COMMAND_H_

#ifdef __cplusplus
extern "C" {
#endif

/* Runs `devharness module check LIB.so [--device SPEC]...` or `module list LIB.so`;
 * argv[0] is "module", argv[1] the subcommand; options as `--help` prints them.
 * check: loads the tvm-ffi library in a child, lists its functions with their type
 * schemas, then runs every case of module/cases.c per function and device, each in a
 * forked child with a timeout; TAP on stdout, optionally --tap FILE and --junit FILE
 * (temporary name + rename). Returns the exit code (cmdline/cmdline.h): DH_EXIT_OK
 * every case passed or skipped, DH_EXIT_VIOLATION a case failed or the library
 * crashed while loading, DH_EXIT_USAGE usage or input error (one line on stderr),
 * DH_EXIT_NO_DEVICE no selected device. Not thread-safe: call from the main thread
 * of a process that has not initialised any backend (it forks). */
int dh_module_main(int argc, char** argv);

#ifdef __cplusplus
}
#endif
#endif /* DEVHARNESS_MODULE_COMMAND_H_ */
