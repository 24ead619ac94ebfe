/*
 * store/store.h — what the results room offers the rooms above it (docs/results.md):
 * a bundle recorded in the SQLite results store, and the entries of the commands it
 * owns, listed in cli/main.c's table:
 *   command.c   `devharness store import|stats`
 *   merge.c     `devharness merge BUNDLE... -o DIR`
 *   verify.c    `devharness verify BUNDLE...`
 * No SQLite type crosses this header: only store/ opens the store (store/internal.h).
 * Each entry takes argv with argv[0] = the command name, prints its own --help and
 * returns the process exit code (DH_EXIT_*, cmdline/cmdline.h). Not thread-safe.
 */
#ifndef DEVHARNESS_STORE_STORE_H_
#define DEVHARNESS_STORE_STORE_H_

/* The default store of a results folder: OUTPUT/devharness.sqlite. */
#define DH_STORE_DEFAULT "results/devharness.sqlite"

/* Records the result bundle in folder dir into the store at path (created or migrated
 * as dh_store_open in store/internal.h does): the bundle is loaded and checked, then
 * imported in one transaction. The run's UUID goes into uuid. Returns 0 recorded or
 * already there, -1 after one line "devharness CMD: ..." on stderr (store unchanged). */
int dh_store_record(const char* cmd, const char* path, const char* dir, char uuid[64]);

int dh_store_cmd_store(int argc, char** argv);
int dh_store_cmd_merge(int argc, char** argv);
int dh_store_cmd_verify(int argc, char** argv);

#endif /* DEVHARNESS_STORE_STORE_H_ */
